/**
 * Order > Create Many: how the answer to a batch becomes one outcome per order, whatever shape
 * the service gives it (reordered, partial, null entries, codes as text). Beside
 * createMany.test.ts; the sandbox's ledger says what really happened.
 */
import { runTradingService } from '../../../../tools/harness/node';
import { PATHS, byInputItem, errorOf } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';

const sandbox = useSandbox({ rateLimit: false, requestRates: false });

/** A batch of `count` LIMIT orders from the items, priced 1, 2, 3… */
const batchOf = (count: number, options: Record<string, unknown> = {}) => ({
	parameters: {
		resource: 'order',
		operation: 'createMany',
		inputMode: 'items',
		symbol: 'BTCUSDT',
		side: 'BUY',
		type: 'LIMIT',
		price: '={{ $json.price }}',
		quantity: '0.01',
		options,
	},
	inputItems: Array.from({ length: count }, (_, index) => ({ json: { price: `${index + 1}` } })),
});

describe('Create Many says which orders have an unknown outcome', () => {
	// In JSON mode one item holds many orders. An error item for an order of a failed batch carries
	// that order's client order ID and symbol, not only the batch's error, so the user can tell
	// which orders to check.
	it('each unknown-outcome item names its order (client order ID and symbol)', async () => {
		sandbox().setFaults({ rules: [{ kind: 'dropBefore', times: 2, path: PATHS.batch }] });
		const orders = Array.from({ length: 25 }, (_, index) => ({
			symbol: index % 2 === 0 ? 'BTCUSDT' : 'ETHUSDT',
			side: 'BUY',
			type: 'LIMIT',
			price: '2',
			quantity: '0.01',
			newClientOrderId: `business-key-${index}`,
		}));
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'createMany',
				inputMode: 'json',
				ordersJson: JSON.stringify(orders),
			},
			continueOnFail: true,
		});
		const unknown = (byInputItem(run.items).get(0) ?? []).filter((item) =>
			/^Unknown outcome/.test(errorOf(item) ?? ''),
		);
		// Both batches (13 BTCUSDT, 12 ETHUSDT orders) were lost, and no order is sent twice.
		expect(unknown).toHaveLength(25);
		for (const item of unknown) {
			const index = Number(/^business-key-(\d+)$/.exec(String(item.json.clientOrderId))?.[1]);
			expect(item.json.symbol).toBe(orders[index].symbol);
		}
	});
});

describe("a batch entry's own code decides its outcome", () => {
	// -1149 (create order failed) says this order was not created: it is rejected, never reported
	// as already placed.
	it('a batch entry with -1149 (create order failed) is rejected, not "already placed"', async () => {
		sandbox().otherHost.setReply({
			status: 200,
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ code: 0, result: [{ code: -1149, msg: 'Create order failed' }] }),
		});
		const run = await runTradingService(sandbox(), {
			// the other host serves no exchange info: the order goes out unchecked
			...batchOf(1, { generateClientOrderId: false, ifSymbolRulesUnreadable: 'sendUnchecked' }),
			credentials: { baseUrl: sandbox().otherHost.url },
		});
		expect(run.items[0].json).toMatchObject({ success: false, outcome: 'rejected', code: -1149 });
		expect(run.items[0].json.alreadyPlaced).toBeUndefined();
	});
});

describe('top-level codes are read as numbers', () => {
	// The service writes a code as a number or as text: "0000" is 0, the batch was taken. A
	// non-zero top-level code beside a result list does not void the per-order results: each order's
	// own entry still decides its outcome.
	it('a batch answered with code "0000" is placed', async () => {
		sandbox().setFaults({ rules: [{ kind: 'batchCode0000', times: 1, path: PATHS.batch }] });
		const run = await runTradingService(sandbox(), batchOf(3));
		expect(run.error?.message).toBeUndefined();
		expect(run.items.map((item) => item.json.outcome)).toEqual(['placed', 'placed', 'placed']);
	});

	it('a non-zero top-level code with result[] keeps the per-order results', async () => {
		sandbox().setFaults({ rules: [{ kind: 'batchTopCodeNonZero', times: 1, path: PATHS.batch }] });
		const run = await runTradingService(sandbox(), batchOf(3, { generateClientOrderId: false }));
		expect(run.error?.message).toBeUndefined();
		expect(run.items.map((item) => item.json.outcome)).toEqual(['placed', 'placed', 'placed']);
		expect(sandbox().ledger.orders).toHaveLength(3);
	});
});

describe('batch results are matched to orders by client order ID', () => {
	// The service need not answer in the order the batch was sent, and an entry may lack a code or
	// be null. Each result is matched to its order by client order ID; an entry that proves nothing
	// is looked up when the order can be, else reported unknown, never placed on trust.
	it('results in reverse order: every item gets its own order', async () => {
		sandbox().setFaults({ rules: [{ kind: 'batchReorder', times: 1, path: PATHS.batch }] });
		const run = await runTradingService(sandbox(), batchOf(3));
		expect(run.items.map((item) => (item.json.order as { price?: string } | null)?.price)).toEqual([
			'1',
			'2',
			'3',
		]);
		for (const item of run.items) {
			expect((item.json.order as { clientOrderId?: string }).clientOrderId).toBe(
				item.json.clientOrderId,
			);
		}
	});

	it('entries without a code (and no IDs to look up by) are unknown, not placed', async () => {
		sandbox().setFaults({ rules: [{ kind: 'batchEntryNoCode', times: 1, path: PATHS.batch }] });
		const run = await runTradingService(sandbox(), {
			...batchOf(2, { generateClientOrderId: false }),
			continueOnFail: true,
		});
		expect(run.items.map((item) => item.json.outcome)).toEqual(['unknown', 'unknown']);
	});

	it('a null entry with Continue On Fail: an item per order, the null one looked up and found placed', async () => {
		sandbox().setFaults({ rules: [{ kind: 'batchNullEntry', times: 1, path: PATHS.batch }] });
		const run = await runTradingService(sandbox(), { ...batchOf(3), continueOnFail: true });
		expect(run.error?.message).toBeUndefined();
		expect(run.items.map((item) => item.json.outcome)).toEqual(['placed', 'placed', 'placed']);
		expect(sandbox().ledger.orders).toHaveLength(3);
	});
});
