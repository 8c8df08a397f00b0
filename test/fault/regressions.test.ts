/**
 * Regression tests for bugs the fault suite and the benchmarks found in code outside test/fault
 * (node, trigger), since fixed: each checks the correct behaviour. A bug found and not yet fixed
 * goes in a knownBugs.test.ts beside this file as `it.failing` (Jest passes it while the bug is
 * there and fails it once fixed), then moves here as a plain `it`.
 */
import { triggerRunner } from '../../tools/harness/trigger';
import { DEMO_ACCOUNTS, startSandbox, type Sandbox } from '../../sandbox';
import { HOUR, PATHS, byInputItem, errorOf, newTally, runAndTally } from './lib';

let sb: Sandbox;
const tally = newTally();
beforeAll(async () => {
	sb = await startSandbox({ rateLimit: false });
});
afterAll(async () => {
	await sb.stop();
});
beforeEach(() => sb.reset());

const now = Date.now();

describe('Get Transaction History checks Account Type before sending', () => {
	// Found by this suite: any accountType other than 0 used to be sent as it was, and refused by
	// the service (0001 accountType).
	it.each([2, 4, 7, 99, -1, 'x', 1.5])('accountType %p: an error naming Account Type, 0 requests', async (accountType) => {
		const run = await runAndTally(sb, tally, {
			parameters: {
				resource: 'account',
				operation: 'getHistory',
				flowType: 51,
				accountType: '={{ $json.accountType }}',
				startTime: new Date(now - HOUR).toISOString(),
				endTime: new Date(now).toISOString(),
				limit: 10,
			},
			inputItems: [{ json: { accountType } }],
			continueOnFail: true,
		});
		expect(run.requests).toEqual([]);
		expect(errorOf(run.items[0])).toMatch(/^Account Type: /);
	});
});

describe('Start and End refuse strings that are not dates', () => {
	// Found by this suite: validation.ts timestampMs used to fall back to Date.parse, which in V8
	// turns many non-ISO strings into dates: "-1" became 2001-01-01, "March 7" 2001-03-07,
	// "2026-02-30T00:00:00Z" 2026-03-02. The error then blamed the other field ("Start: … must be
	// before End (2001-01-01…)"), or showed a date the user never entered.
	it.each([
		['endTime', '-1', 'End'],
		['startTime', '2026-02-30T00:00:00Z', 'Start'],
		['endTime', 'March 7', 'End'],
	])('%s = %p: an error naming %s, 0 requests', async (field, value, label) => {
		const run = await runAndTally(sb, tally, {
			parameters: {
				resource: 'account',
				operation: 'getHistory',
				flowType: 32,
				startTime: new Date(now - HOUR).toISOString(),
				endTime: new Date(now).toISOString(),
				[field]: value,
				limit: 10,
			},
			continueOnFail: true,
		});
		expect(run.requests).toEqual([]);
		expect(errorOf(run.items[0])).toMatch(new RegExp(`^${label}: .*not a date`));
	});
});

describe('Return All of more than ~125,000 records', () => {
	// Found by the benchmarks: actions/router.ts used to push an item's records with
	// returnData.push(...records), spreading every record into one call's arguments. V8 allows
	// ~125,000 of them here (Node 20): a Return All of 160,000 records, read without a problem,
	// then failed with "Maximum call stack size exceeded" and returned nothing.
	it('Return All of 160,000 records returns them all', async () => {
		const end = Date.now() - 60_000;
		sb.seedRecords({ flowType: 32, count: 160_000, startTime: end - 29 * 24 * HOUR, endTime: end, seed: 9 });
		const run = await runAndTally(sb, tally, {
			parameters: {
				resource: 'account',
				operation: 'getHistory',
				flowType: 32,
				returnAll: true,
				startTime: new Date(end - 29 * 24 * HOUR - 1000).toISOString(),
				endTime: new Date(end + 1000).toISOString(),
			},
		});
		expect(run.error?.message).toBeUndefined();
		expect(run.items).toHaveLength(160_000);
	}, 60_000);
});

describe('Create (single order) with Type set by expression places LIMIT and MARKET orders', () => {
	// Found by this suite: the single-order layout had two parameters named timeInForce (GTC for
	// LIMIT and LIMIT_MAKER, IOC for MARKET), told apart by displayOptions on `type`. With Type an
	// expression n8n resolved timeInForce to the MARKET variant's default, IOC, and every LIMIT
	// order failed with 'Time In Force: "IOC" is not allowed for LIMIT orders'.
	it('Type from the item: a LIMIT and a MARKET order are placed', async () => {
		const run = await runAndTally(sb, tally, {
			parameters: {
				resource: 'order',
				operation: 'create',
				symbol: 'BTCUSDT',
				side: 'BUY',
				type: '={{ $json.type }}',
				price: '={{ $json.price }}',
				quantity: '={{ $json.quantity }}',
				amount: '={{ $json.amount }}',
			},
			inputItems: [
				{ json: { type: 'LIMIT', price: '10', quantity: '0.1' } },
				{ json: { type: 'MARKET', quantity: '0.01' } },
			],
			continueOnFail: true,
		});
		expect(run.items.map((item) => errorOf(item))).toEqual([undefined, undefined]);
		expect(sb.ledger.orders).toHaveLength(2);
	});
});

describe('Create Many says which orders have an unknown outcome', () => {
	// Found by this suite: createMany.operation.ts errorItem() used to give each order of a failed
	// batch only the batch's error and description, no clientOrderId, no symbol. In JSON mode an
	// item holds many orders, so the user could not tell which orders to check.
	it('each unknown-outcome item names its order (client order ID and symbol)', async () => {
		sb.setFaults({ rules: [{ kind: 'dropBefore', times: 3, path: PATHS.batch }] });
		const orders = Array.from({ length: 25 }, (_, index) => ({
			symbol: index % 2 === 0 ? 'BTCUSDT' : 'ETHUSDT',
			side: 'BUY',
			type: 'LIMIT',
			price: '2',
			quantity: '0.01',
			newClientOrderId: `business-key-${index}`,
		}));
		const run = await runAndTally(sb, tally, {
			parameters: { resource: 'order', operation: 'createMany', inputMode: 'json', ordersJson: JSON.stringify(orders) },
			continueOnFail: true,
		});
		const unknown = (byInputItem(run.items).get(0) ?? []).filter((item) => /^Unknown outcome/.test(errorOf(item) ?? ''));
		expect(unknown).toHaveLength(13);
		for (const item of unknown) {
			expect(item.json.clientOrderId).toMatch(/^business-key-/);
			expect(item.json.symbol).toBe('BTCUSDT');
		}
	});
});

describe('The trigger emits records listed late inside the window, also behind more than a page of newer records', () => {
	// Found by this suite: trigger/poll.ts catchUp read from the watermark minus the Late Records
	// Window, but walkHistory stopped at the first full page that reached below the watermark
	// (stopBelow): a record listed late, well inside the window, was read only if it was among
	// the newest 500 records; behind 550 newer ones it was never emitted.
	it('a record listed 110 s late, inside the 10-minute window, behind 550 newer records, is emitted', async () => {
		const runner = triggerRunner(sb);
		const t0 = sb.now() - 5 * 60_000;
		const fee = (created: number) => ({ accountId: DEMO_ACCOUNTS.mainContract, flowTypeValue: 32, change: '-0.1', created: String(created) });
		sb.addRecords([fee(t0)]);
		expect((await runner.poll()).error).toBeUndefined();
		// 600 records, 200 ms apart, all after the baseline: emitted.
		const watermark = t0 + 120_000;
		sb.addRecords(Array.from({ length: 600 }, (_, index) => fee(watermark - index * 200)));
		expect((await runner.poll()).items).toHaveLength(600);
		// Listed late: 110 s before the newest record.
		const [late] = sb.addRecords([fee(watermark - 110_000)]);
		const poll = await runner.poll();
		expect(poll.items.map((item) => item.json.id)).toEqual([late.id]);
	});
});
