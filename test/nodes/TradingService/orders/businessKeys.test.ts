import { writeSessionOf } from '../../../../nodes/TradingService/writes/writeSession';
import { RunContext } from '../../../../nodes/TradingService/run/runContext';
import type { OrderParams } from '../../../../nodes/TradingService/orders/orderRules';
import { DEFAULT_RETRY_POLICY } from '../../../../nodes/TradingService/transport';
import { checkBusinessKeys } from '../../../../nodes/TradingService/orders/businessKeys';
import { WriteLedger } from '../../../../nodes/TradingService/writes/ledger';
import {
	pendingOrder,
	type PendingOrder,
} from '../../../../nodes/TradingService/orders/orderWrites';
import { requestsTo } from '../../../../tools/harness/node';
import { withExecuteFunctions } from '../../../support/probe';
import { useSandbox } from '../../../support/sandbox';

// Business keys checked before orders are sent, against the sandbox: one lookup per order for a
// few, two list pages per symbol for more, and what a found order means.

const sandbox = useSandbox({ rateLimit: false, requestRates: false });

const ORDER = '/api/v1/spot/order';
const OPEN = '/api/v1/spot/openOrders';
const PAST = '/api/v1/spot/tradeOrders';

const limitOrder = (overrides: Partial<OrderParams> = {}): OrderParams => ({
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	timeInForce: 'GTC',
	price: '100',
	quantity: '0.01',
	stpMode: 'EXPIRE_TAKER',
	...overrides,
});

function pendingOrders(orders: OrderParams[]): PendingOrder[] {
	const ledger = new WriteLedger({}, 0);
	return orders.map((order, index) => pendingOrder(ledger, String(index), order, index, 0, 'gen'));
}

const check = (pending: PendingOrder[]) =>
	withExecuteFunctions(sandbox(), (context) =>
		checkBusinessKeys(writeSessionOf(new RunContext(context)), pending),
	);

/** Seeds an open order holding `clientOrderId`, as an earlier execution would have placed it. */
const seed = (clientOrderId: string, price = '100') =>
	sandbox().seedOpenOrder({
		symbol: 'BTCUSDT',
		side: 'BUY',
		price,
		quantity: '0.01',
		clientOrderId,
		time: sandbox().now(),
	});

describe('checkBusinessKeys', () => {
	it('orders with generated IDs are not checked: no request', async () => {
		const verdicts = await check(pendingOrders([limitOrder(), limitOrder({ price: '101' })]));
		expect(verdicts).toEqual([undefined, undefined]);
		expect(sandbox().ledger.requests).toHaveLength(0);
	});

	it('3 keyed orders of a symbol: one lookup each; the one found open is placed and already placed', async () => {
		const held = seed('row-1');
		const verdicts = await check(
			pendingOrders(['row-0', 'row-1', 'row-2'].map((id) => limitOrder({ newClientOrderId: id }))),
		);
		expect(verdicts).toEqual([
			undefined,
			expect.objectContaining({
				kind: 'placed',
				alreadyPlaced: true,
				result: expect.objectContaining({ orderId: held.orderId }),
			}),
			undefined,
		]);
		expect(requestsTo(sandbox(), ORDER)).toHaveLength(3);
		expect(requestsTo(sandbox(), OPEN)).toHaveLength(0);
	});

	it('more than 3 keyed orders of a symbol: one open-orders and one past-orders page, no lookup per order; open and filled orders both found', async () => {
		const open = seed('row-1');
		const filled = seed('row-3');
		sandbox().fillOrder(filled.orderId);
		const verdicts = await check(
			pendingOrders(
				['row-0', 'row-1', 'row-2', 'row-3'].map((id) => limitOrder({ newClientOrderId: id })),
			),
		);
		expect(verdicts.map((verdict) => verdict?.kind)).toEqual([
			undefined,
			'placed',
			undefined,
			'placed',
		]);
		expect(verdicts[1]).toMatchObject({ result: { orderId: open.orderId, status: 'NEW' } });
		expect(verdicts[3]).toMatchObject({ result: { orderId: filled.orderId, status: 'FILLED' } });
		expect(requestsTo(sandbox(), OPEN)).toHaveLength(1);
		expect(requestsTo(sandbox(), PAST)).toHaveLength(1);
		expect(requestsTo(sandbox(), ORDER)).toHaveLength(0);
	});

	it('an ID another order holds (other price): rejected, saying nothing was sent', async () => {
		seed('row-1', '99');
		const [verdict] = await check(pendingOrders([limitOrder({ newClientOrderId: 'row-1' })]));
		expect(verdict).toMatchObject({ kind: 'rejected' });
		const error = verdict?.kind === 'rejected' ? verdict.refusal.error : undefined;
		expect(error?.message).toBe('Client order ID row-1 already belongs to another order');
		expect(error?.description).toContain('Nothing was sent');
		// What tells the two orders apart is named: the price found, not just side, type and symbol.
		expect(error?.description).toMatch(/price 99(\.0*)?, quantity /);
	});

	it('lists that fail fall back to one lookup per order; lookups that fail refuse the order (a key that cannot be checked is not sent)', async () => {
		const quickRetries = jest.replaceProperty(DEFAULT_RETRY_POLICY, 'baseDelayMs', 1);
		sandbox().setFaults({
			rules: [
				{ kind: 'http500', times: 100, path: OPEN },
				{ kind: 'http500', times: 100, path: ORDER },
			],
		});
		const verdicts = await check(
			pendingOrders(
				['row-0', 'row-1', 'row-2', 'row-3'].map((id) => limitOrder({ newClientOrderId: id })),
			),
		);
		quickRetries.restore();
		expect(requestsTo(sandbox(), ORDER).length).toBeGreaterThanOrEqual(4);
		expect(verdicts.every((verdict) => verdict?.kind === 'rejected')).toBe(true);
		const error = verdicts[0]?.kind === 'rejected' ? verdicts[0].refusal.error : undefined;
		expect(error?.message).toBe('Could not check whether client order ID row-0 was already used');
	});
});
