import { readBatchResults } from '../../../../nodes/TradingService/orders/orderWrites';
import type { OrderParams } from '../../../../nodes/TradingService/orders/orderRules';

// Fixed vectors: how the entries of a batch answer are matched to the orders sent and read.

const sentOrder = (price: string, newClientOrderId?: string): OrderParams => ({
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	timeInForce: 'GTC',
	stpMode: 'EXPIRE_TAKER',
	price,
	quantity: '0.01',
	...(newClientOrderId === undefined ? {} : { newClientOrderId }),
});
/** The order as the service answers it (price and size as it formats them). */
const placedEntry = (
	order: OrderParams,
	code: unknown = 0,
	clientOrderId = order.newClientOrderId ?? `svc-${order.price}`,
) => ({
	code,
	msg: '',
	order: {
		orderId: `1${order.price}`,
		clientOrderId,
		symbol: order.symbol,
		side: order.side,
		type: order.type,
		price: `${order.price}.00`,
		origQty: '0.0100',
		status: 'NEW',
	},
});
const refusal = (code: unknown = -1131) => ({ code, msg: 'Create order failed' });
const kinds = (verdicts: Array<{ kind: string }>) => verdicts.map((verdict) => verdict.kind);

describe('batch results', () => {
	it('success is numeric zero in any spelling: 0, "0", "0000"', () => {
		const sent = [sentOrder('1', 'a'), sentOrder('2', 'b'), sentOrder('3', 'c')];
		const result = [
			placedEntry(sent[0], 0),
			placedEntry(sent[1], '0'),
			placedEntry(sent[2], '0000'),
		];
		expect(kinds(readBatchResults(sent, result))).toEqual(['placed', 'placed', 'placed']);
	});

	it('placed only with code zero and an order object; an entry without a code or a null entry is unknown', () => {
		const sent = [sentOrder('1', 'a'), sentOrder('2', 'b'), sentOrder('3', 'c')];
		const result = [{ code: 0, msg: '' }, { ...placedEntry(sent[1]), code: undefined }, null];
		expect(kinds(readBatchResults(sent, result))).toEqual(['unknown', 'unknown', 'unknown']);
	});

	it('codes from the family table: -1149 rejected, -1141 duplicate (looked up), -1146 and "-1007" unknown', () => {
		const sent = [sentOrder('1'), sentOrder('2'), sentOrder('3'), sentOrder('4')];
		const result = [refusal(-1149), refusal(-1141), refusal(-1146), refusal('-1007')];
		expect(kinds(readBatchResults(sent, result))).toEqual([
			'rejected',
			'duplicate',
			'unknown',
			'unknown',
		]);
	});

	it('entries in another order are matched by client order ID', () => {
		const sent = [sentOrder('1', 'a'), sentOrder('2', 'b'), sentOrder('3', 'c')];
		const verdicts = readBatchResults(sent, [
			placedEntry(sent[2]),
			placedEntry(sent[1]),
			placedEntry(sent[0]),
		]);
		expect(
			verdicts.map((verdict) =>
				verdict.kind === 'placed' ? verdict.order.clientOrderId : verdict.kind,
			),
		).toEqual(['a', 'b', 'c']);
	});

	it('a refusal without an ID is paired by position when every entry with an ID sits at its own order', () => {
		const sent = [sentOrder('1', 'a'), sentOrder('2', 'b')];
		expect(kinds(readBatchResults(sent, [placedEntry(sent[0]), refusal()]))).toEqual([
			'placed',
			'rejected',
		]);
	});

	it('an entry with an ID at another position: the entries without an ID are unknown, not rejected', () => {
		const sent = [sentOrder('1', 'a'), sentOrder('2', 'b'), sentOrder('3', 'c')];
		expect(
			kinds(readBatchResults(sent, [placedEntry(sent[1]), refusal(), placedEntry(sent[2])])),
		).toEqual(['unknown', 'placed', 'placed']);
	});

	it('without client order IDs, results in another order are unknown, never a refusal given to a placed order', () => {
		const sent = [sentOrder('1'), sentOrder('2')];
		expect(kinds(readBatchResults(sent, [placedEntry(sent[1]), refusal()]))).toEqual([
			'unknown',
			'unknown',
		]);
		// In the order sent they are read by position.
		expect(kinds(readBatchResults(sent, [refusal(), placedEntry(sent[1])]))).toEqual([
			'rejected',
			'placed',
		]);
	});

	it('fewer results than orders: with IDs the unmatched order is unknown; without IDs every order is', () => {
		const withIds = [sentOrder('1', 'a'), sentOrder('2', 'b')];
		expect(kinds(readBatchResults(withIds, [placedEntry(withIds[1])]))).toEqual([
			'unknown',
			'placed',
		]);
		const withoutIds = [sentOrder('1'), sentOrder('2')];
		expect(kinds(readBatchResults(withoutIds, [placedEntry(withoutIds[0])]))).toEqual([
			'unknown',
			'unknown',
		]);
	});

	it('a placed entry about another order (other price) is unknown', () => {
		const sent = [sentOrder('1', 'a')];
		const other = placedEntry(sentOrder('9', 'a'));
		expect(kinds(readBatchResults(sent, [other]))).toEqual(['unknown']);
	});
});
