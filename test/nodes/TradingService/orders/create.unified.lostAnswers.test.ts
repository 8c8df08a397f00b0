import type { SandboxBehaviour } from '../../../../sandbox';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { useSandbox } from '../../../support/sandbox';

// The order shapes only the unified endpoints take (a MARKET SELL by Amount, IOC and FOK limit
// orders), each with its answer lost: looked up by client order ID, reported placed, sent once.

const sandbox = useSandbox({ rateLimit: false, requestRates: false, symbolRules: 'lenient' });
const v2 = { typeVersion: 2 };
const byId = (value: string) => ({ __rl: true, mode: 'id', value });
const UNIFIED = '/api/v1.1/spot/order';
const UNIFIED_BATCH = '/api/v1.1/spot/batchOrders';

describe('Order > Create, version 2: a lost answer of a unified-only order', () => {
	it.each([
		[
			'a MARKET SELL by Amount',
			{ side: 'SELL', type: 'MARKET', marketOrderBy: 'amount', amount: '1000' },
			{},
		],
		[
			'a MARKET SELL by Amount, answered as MARKET_OF_QUOTE',
			{ side: 'SELL', type: 'MARKET', marketOrderBy: 'amount', amount: '1000' },
			{ marketOrderType: 'byBase' } as SandboxBehaviour,
		],
		[
			'a LIMIT IOC that could not trade (CANCELED, nothing filled)',
			{ side: 'BUY', type: 'LIMIT', price: '100', quantity: '0.01', timeInForce: 'IOC' },
			{},
		],
		[
			'a LIMIT FOK that filled',
			{ side: 'BUY', type: 'LIMIT', price: '90000', quantity: '0.01', timeInForce: 'FOK' },
			{},
		],
	])('%s: looked up, placed, sent once', async (_what, order, behaviour: SandboxBehaviour) => {
		sandbox().setBehaviour(behaviour);
		sandbox().setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: UNIFIED }] });
		const run = await runTradingService(sandbox(), {
			parameters: { resource: 'order', operation: 'create', symbol: byId('ETHUSDT'), ...order },
			node: v2,
			credentials: { recvWindow: 200 },
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json.outcome).toBe('placed');
		expect(JSON.stringify(run.items[0].json)).not.toMatch(/nothing was executed/i);
		expect(sandbox().ledger.orders).toHaveLength(1);
		expect(requestsTo(sandbox(), UNIFIED)).toHaveLength(1);
	});

	it('a lost unified batch of a SELL by Amount and an IOC: both found in the lists, placed, sent once', async () => {
		sandbox().setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: UNIFIED_BATCH }] });
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'createMany',
				inputMode: 'json',
				ordersJson: JSON.stringify([
					{ symbol: 'ETHUSDT', side: 'SELL', type: 'MARKET', amount: '300' },
					{
						symbol: 'ETHUSDT',
						side: 'BUY',
						type: 'LIMIT',
						price: '100',
						quantity: '0.1',
						timeInForce: 'IOC',
					},
				]),
			},
			node: v2,
			credentials: { recvWindow: 200 },
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.outcome)).toEqual(['placed', 'placed']);
		expect(sandbox().ledger.orders).toHaveLength(2);
		expect(requestsTo(sandbox(), UNIFIED_BATCH)).toHaveLength(1);
	});
});
