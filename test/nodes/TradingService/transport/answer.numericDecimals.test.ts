/**
 * Defect 12, through the real executor against the sandbox: the service may send an order's
 * decimals as bare JSON numbers (fault numericDecimals writes them so, every digit verbatim). An
 * order placed with 18 decimals must still match its own answer, on both parsing paths: the batch
 * answer read entry by entry, and the lookup that settles an unknown outcome.
 */
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { PATHS } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';

const sandbox = useSandbox({ rateLimit: false, requestRates: false });

const PRICE = '0.123456789012345678';
const QUANTITY = '1.000000000000000001';

const createMany = {
	resource: 'order',
	operation: 'createMany',
	inputMode: 'items',
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	price: '={{ $json.price }}',
	quantity: '={{ $json.quantity }}',
};

const create = {
	resource: 'order',
	operation: 'create',
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	price: PRICE,
	quantity: QUANTITY,
};

describe('defect 12: an 18-decimal order answered with bare JSON numbers is placed, not unknown', () => {
	it('Create Many: the batch answer carries price and origQty as JSON numbers with 18 decimals', async () => {
		// Every answer that shows the order writes its decimals as bare numbers: the batch answer,
		// and a lookup should the node need one.
		sandbox().setFaults({
			rules: [
				{ kind: 'numericDecimals', times: 1, path: PATHS.batch },
				{ kind: 'numericDecimals', times: 5, path: PATHS.queryOrder, method: 'GET' },
			],
		});
		const run = await runTradingService(sandbox(), {
			parameters: createMany,
			inputItems: [{ json: { price: PRICE, quantity: QUANTITY } }],
			continueOnFail: true,
		});
		// The answer really held the long decimals as bare numbers.
		const [batch] = requestsTo(sandbox(), PATHS.batch);
		expect(batch.fault).toBe('numericDecimals');
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(1);
		expect(run.items[0].json).toMatchObject({
			outcome: 'placed',
			order: { price: PRICE, origQty: QUANTITY, executedQty: '0' },
		});
		// Read from the batch answer itself: no lookup was needed.
		expect(requestsTo(sandbox(), PATHS.queryOrder)).toHaveLength(0);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('Create after a lost answer: the lookup answers price and origQty as JSON numbers with 18 decimals', async () => {
		sandbox().setFaults({
			rules: [
				{ kind: 'dropAfter', times: 1, path: PATHS.order },
				{ kind: 'numericDecimals', times: 1, path: PATHS.queryOrder, method: 'GET' },
			],
		});
		const run = await runTradingService(sandbox(), { parameters: create, continueOnFail: true });
		expect(requestsTo(sandbox(), PATHS.queryOrder).map((request) => request.fault)).toEqual([
			'numericDecimals',
		]);
		expect(run.items).toHaveLength(1);
		expect(run.items[0].json).toMatchObject({ outcome: 'placed', price: PRICE, origQty: QUANTITY });
		expect(sandbox().ledger.orders).toHaveLength(1);
	});
});
