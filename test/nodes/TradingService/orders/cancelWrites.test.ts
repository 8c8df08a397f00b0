import { writeSessionOf } from '../../../../nodes/TradingService/writes/writeSession';
import { RunContext } from '../../../../nodes/TradingService/run/runContext';
import type { OrderReference } from '../../../../nodes/TradingService/orders/orderIds';
import { rejectionError } from '../../../../nodes/TradingService/transport/errors';
import { WriteLedger, fingerprint } from '../../../../nodes/TradingService/writes/ledger';
import {
	isNothingToCancel,
	notOpenReason,
} from '../../../../nodes/TradingService/orders/cancelLookups';
import {
	cancelKind,
	cancelQuery,
	pendingCancel,
	type PendingCancel,
} from '../../../../nodes/TradingService/orders/cancelWrites';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { placeRestingOrders } from '../../../support/orders';
import { withExecuteFunctions } from '../../../support/probe';
import { useSandbox } from '../../../support/sandbox';
import { node, offline } from '../../../support/fixedNode';

// The cancel kind of the write engine: the not-open reasons, requests and answers (fixed vectors),
// and confirming a cancel by looking the order up, against the sandbox.

const ORDER = '/api/v1/spot/order';

function pendingCancels(references: OrderReference[]): PendingCancel[] {
	const ledger = new WriteLedger({}, 0);
	return references.map((reference, index) =>
		pendingCancel(ledger, String(index), reference, index),
	);
}
const byId = (...ids: string[]) => pendingCancels(ids.map((orderId) => ({ orderId })));

describe('notOpenReason', () => {
	it('reads the codes of an order no longer open, spelt as numbers or strings', () => {
		expect(notOpenReason('-1139')).toEqual({
			code: '-1139',
			reason: 'alreadyFilled',
			text: 'the order is already filled',
		});
		expect(notOpenReason(-1142)?.reason).toBe('alreadyCancelled');
		expect(notOpenReason('-1138')?.reason).toBe('alreadyPartiallyCancelled');
		expect(notOpenReason(-1143)).toEqual({
			code: '-1143',
			reason: 'notFound',
			text: 'the service has no open order with this ID',
		});
	});

	it('knows no other code', () => {
		for (const code of ['0401', -1141, '-1147', 0, '', undefined])
			expect(notOpenReason(code)).toBeUndefined();
	});

	it('hands out a copy: changing it changes nothing for the next caller', () => {
		const reason = notOpenReason('-1139')!;
		reason.text = 'changed';
		expect(notOpenReason('-1139')?.text).toBe('the order is already filled');
	});
});

describe('cancelKind', () => {
	it('Cancel names the order by orderId or clientOrderId, one DELETE /api/v1/spot/order each', () => {
		expect(cancelQuery({ orderId: '12' })).toEqual({ orderId: '12' });
		expect(cancelQuery({ clientOrderId: 'row-1' })).toEqual({ clientOrderId: 'row-1' });
		const kind = cancelKind(offline, 'single');
		const pending = pendingCancels([{ orderId: '12' }, { clientOrderId: 'row-1' }]);
		expect(kind.groups(pending)).toEqual([[pending[0]], [pending[1]]]);
		const { endpoint, request } = kind.request([pending[1]]);
		expect([endpoint.method, endpoint.path]).toEqual(['DELETE', ORDER]);
		expect(request).toEqual({ qs: { clientOrderId: 'row-1' }, itemIndex: 1 });
	});

	it('Cancel Many by IDs sends 100 IDs per request, comma-separated', () => {
		const ids = Array.from({ length: 250 }, (_, index) => String(1000 + index));
		const kind = cancelKind(offline, 'byIds');
		const groups = kind.groups(byId(...ids));
		expect(groups.map((group) => group.length)).toEqual([100, 100, 50]);
		const { endpoint, request } = kind.request(groups[2]);
		expect([endpoint.method, endpoint.path]).toEqual(['DELETE', '/api/v1/spot/cancelOrderByIds']);
		expect(request).toEqual({ qs: { ids: ids.slice(200).join(',') }, itemIndex: 200 });
	});

	it('reads a cancel-by-IDs answer, which lists only the IDs not cancelled', () => {
		const kind = cancelKind(offline, 'byIds');
		const group = byId('1', '2', '3');
		const verdicts = kind.read(
			{
				code: 0,
				result: [
					{ orderId: '2', code: '-1139' },
					{ orderId: 3, code: 401 },
				],
			},
			group,
		);
		// A cancelled ID keeps its order ID: two items of one run cancelling it share one cancel.
		expect(verdicts).toEqual([
			{ kind: 'placed', result: { orderId: '1' } },
			{
				kind: 'rejected',
				refusal: {
					code: '-1139',
					detail: { reason: 'alreadyFilled', text: 'the order is already filled' },
				},
			},
			{
				kind: 'rejected',
				refusal: {
					code: '401',
					detail: { reason: 'refused', text: 'the service refused with code 401' },
				},
			},
		]);
		for (const allCancelled of [{ result: null }, { result: [] }, {}])
			expect(kind.read(allCancelled, group).map((verdict) => verdict.kind)).toEqual([
				'placed',
				'placed',
				'placed',
			]);
	});

	it('a single cancel refused because the order is not open: rejected with the reason and the service words', () => {
		const filled = rejectionError(
			node,
			{ code: '-1139', msg: 'Order has been filled.', httpStatus: 400 },
			0,
		);
		expect(cancelKind(offline, 'single').refused!(filled)).toEqual({
			kind: 'rejected',
			refusal: {
				code: '-1139',
				msg: 'Order has been filled.',
				detail: { reason: 'alreadyFilled', text: 'the order is already filled' },
			},
		});
		// Any other refusal, and any refusal of a cancel by IDs, carries the error itself.
		const balance = rejectionError(node, { code: '0104', msg: 'no', httpStatus: 400 }, 0);
		expect(cancelKind(offline, 'single').refused!(balance)).toEqual({
			kind: 'rejected',
			refusal: { error: balance },
		});
		expect(cancelKind(offline, 'byIds').refused!(filled)).toEqual({
			kind: 'rejected',
			refusal: { error: filled },
		});
	});

	it('UAE rule: cancel codes 0212, 0211 and -2013 (and -1143) say "nothing to cancel" without why: such a refusal or entry is looked up, never taken as filled, cancelled or missing', () => {
		for (const code of ['0212', 212, '0211', 211, '-2013', -2013, '-1143'])
			expect(isNothingToCancel(code)).toBe(true);
		for (const code of ['-1139', '-1142', '-1138', '-1147', '0000', 0, undefined])
			expect(isNothingToCancel(code)).toBe(false);
		for (const code of ['0212', '-2013', '0211']) {
			const said = rejectionError(node, { code, msg: 'the words', httpStatus: 400 }, 0);
			expect(cancelKind(offline, 'single').refused!(said)).toEqual({
				kind: 'duplicate',
				refusal: { code, msg: 'the words' },
			});
		}
		const verdicts = cancelKind(offline, 'byIds').read(
			{
				code: '0000',
				result: [
					{ orderId: '1', code: '0211' },
					{ orderId: '2', code: '-2013' },
					{ orderId: '3', code: 212 },
				],
			},
			byId('1', '2', '3'),
		);
		expect(verdicts).toEqual([
			{ kind: 'duplicate', refusal: { code: '0211', msg: '' } },
			{ kind: 'duplicate', refusal: { code: '-2013', msg: '' } },
			{ kind: 'duplicate', refusal: { code: '212', msg: '' } },
		]);
	});

	it('names the cancel and what to look up; keeps in the ledger only what the service assigned', () => {
		const kind = cancelKind(offline, 'single');
		expect(kind.wording({ reference: { orderId: '12' } })).toEqual({
			what: 'cancel of order ID 12',
			howToCheck: 'Look up order ID 12 (Trading Service > Order > Get) and check its status',
		});
		expect(kind.wording({ reference: { clientOrderId: 'row-1' } }).what).toBe(
			'cancel of order with client order ID row-1',
		);
		expect(kind.whyNoLookup({ reference: { orderId: '12' } })).toBeUndefined();
		expect(
			kind.stored({
				orderId: 12,
				clientOrderId: 'row-1',
				symbol: 'BTCUSDT',
				status: 'CANCELED',
				transactTime: '1700000000000',
				price: '100',
				origQty: '1',
			}),
		).toEqual({
			orderId: '12',
			clientOrderId: 'row-1',
			symbol: 'BTCUSDT',
			status: 'CANCELED',
			transactTime: '1700000000000',
		});
	});

	it('the ledger slot of a cancel is keyed by its query', () => {
		const context = {};
		const [pending] = [pendingCancel(new WriteLedger(context, 0), '3.1', { orderId: '12' }, 3)];
		pending.slot.record({ outcome: 'placed' });
		expect(context).toEqual({
			writeLedger: {
				'0': { '3.1': { [fingerprint('cancelOrder', { orderId: '12' })]: { o: 'placed' } } },
			},
		});
	});
});

describe('cancelKind lookups against the sandbox', () => {
	const sandbox = useSandbox({ rateLimit: false, requestRates: false });

	/** Runs `use` inside a node run of n8n's real executor, with the run's context. */
	const inNodeRun = <T>(use: (run: RunContext) => Promise<T>): Promise<T> =>
		withExecuteFunctions(sandbox(), (context) => use(new RunContext(context)));
	const lookUp = (pending: PendingCancel) =>
		inNodeRun((run) => cancelKind(writeSessionOf(run), 'single').lookup(pending));
	const lookups = () => requestsTo(sandbox(), ORDER).filter((request) => request.method === 'GET');

	it('a cancelled order: the cancel is confirmed, placed, with the order', async () => {
		const [orderId] = await placeRestingOrders(sandbox(), 1);
		const [pending] = byId(orderId);
		await runTradingService(sandbox(), {
			parameters: { resource: 'order', operation: 'cancel', orderId },
		});
		const since = sandbox().ledger.requests.length;
		await expect(lookUp(pending)).resolves.toMatchObject({
			kind: 'placed',
			result: { orderId, status: 'CANCELED' },
		});
		expect(sandbox().ledger.requests.slice(since)).toHaveLength(1);
		expect(lookups()[0].query).toMatch(new RegExp(`^orderId=${orderId}&`));
	});

	it('a filled order: rejected, already filled, with the order found', async () => {
		const [orderId] = await placeRestingOrders(sandbox(), 1);
		sandbox().fillOrder(orderId);
		await expect(lookUp(byId(orderId)[0])).resolves.toMatchObject({
			kind: 'rejected',
			refusal: {
				code: '-1139',
				msg: 'order status FILLED',
				detail: { reason: 'alreadyFilled', order: { orderId, status: 'FILLED' } },
			},
		});
	});

	it('an order the service does not know: rejected, not found', async () => {
		await expect(lookUp(byId('1234567890123456789')[0])).resolves.toMatchObject({
			kind: 'rejected',
			refusal: { code: '-1143', detail: { reason: 'notFound' } },
		});
		expect(lookups()).toHaveLength(1);
	});

	it('still open once the cancel can no longer be applied: not done (may be sent again), one lookup', async () => {
		const [orderId] = await placeRestingOrders(sandbox(), 1);
		const [pending] = byId(orderId);
		pending.window.acceptableUntil = Date.now() - 1;
		await expect(lookUp(pending)).resolves.toEqual({ kind: 'notDone' });
		expect(lookups()).toHaveLength(1);
		expect(sandbox().ledger.cancels).toHaveLength(0);
	});

	it('a lookup that fails: unknown, saying why', async () => {
		const [orderId] = await placeRestingOrders(sandbox(), 1);
		sandbox().setFaults({ rules: [{ kind: 'ipBan', times: 1, path: ORDER, method: 'GET' }] });
		await expect(lookUp(byId(orderId)[0])).resolves.toMatchObject({
			kind: 'unknown',
			reason: expect.stringMatching(/^looking the order up failed: /),
		});
	});
});
