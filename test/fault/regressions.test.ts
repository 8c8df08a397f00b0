/**
 * Regression tests for bugs the fault suite and the benchmarks found in code outside test/fault
 * (node, trigger), since fixed: each checks the correct behaviour. A bug found and not yet fixed
 * goes in a knownBugs.test.ts beside this file as `it.failing` (Jest passes it while the bug is
 * there and fails it once fixed), then moves here as a plain `it`. The defects of issue 11 were
 * committed here as `it.failing` first, then flipped with their fix.
 */
import { triggerRunner } from '../../tools/harness/trigger';
import { DEMO_ACCOUNTS, DEMO_KEYS, startSandbox, type Sandbox } from '../../sandbox';
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
	it.each([2, 4, 7, 99, -1, 'x', 1.5])(
		'accountType %p: an error naming Account Type, 0 requests',
		async (accountType) => {
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
		},
	);
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
		sb.seedRecords({
			flowType: 32,
			count: 160_000,
			startTime: end - 29 * 24 * HOUR,
			endTime: end,
			seed: 9,
		});
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
		const fee = (created: number) => ({
			accountId: DEMO_ACCOUNTS.mainContract,
			flowTypeValue: 32,
			change: '-0.1',
			created: String(created),
		});
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

// ------------------------------------------------------------------ issue 11: money safety, part 1
//
// Each numbered defect of issue 11, reproduced through n8n-core's real executor (Retry On Fail as
// the node's Settings set it) against the sandbox, whose ledger says what really happened.

const RETRY_ON_FAIL = { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 };
const NEW_ORDER = '/api/v1/spot/new/order';
const QUERY_ORDER = '/api/v1/spot/order';

const transferTo = (quantity: string) => ({
	resource: 'account',
	operation: 'transferAsset',
	fromAccountId: DEMO_ACCOUNTS.mainTrading,
	toAccountId: DEMO_ACCOUNTS.subTrading,
	coin: 'USDT',
	quantity,
});
const limitOrder = (overrides: Record<string, unknown> = {}) => ({
	resource: 'order',
	operation: 'create',
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	price: '10',
	quantity: '0.01',
	...overrides,
});
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
/** The outcome a run reports for an item or for its error. */
const outcomeOf = (
	run: { items: Array<{ json: Record<string, unknown> }>; error?: { context?: unknown } },
	index = 0,
) =>
	run.error
		? (run.error.context as { outcome?: string } | undefined)?.outcome
		: run.items[index]?.json.outcome;

describe('issue 11, defect 1: n8n Retry On Fail never repeats a write', () => {
	it('a transfer committed but unanswered: exactly one transfer, reported unknown', async () => {
		sb.setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: PATHS.transfer }] });
		const run = await runAndTally(sb, tally, {
			parameters: transferTo('1.5'),
			node: RETRY_ON_FAIL,
		});
		expect(sb.ledger.transfers).toHaveLength(1);
		expect(run.error?.message).toMatch(/^Unknown outcome/);
		expect(outcomeOf(run)).toBe('unknown');
	});

	it('two transfers, item 1 refused (balance): item 0 moves once, not once per try', async () => {
		const run = await runAndTally(sb, tally, {
			parameters: transferTo('={{ $json.quantity }}'),
			inputItems: [{ json: { quantity: '2' } }, { json: { quantity: '99999999999' } }],
			node: RETRY_ON_FAIL,
		});
		expect(run.error?.message).toBe('The account balance is too low for this request');
		expect(sb.ledger.transfers).toHaveLength(1);
	});

	it('with Continue On Fail, item 0 failing makes n8n re-run the node: item 1 still moves once', async () => {
		const run = await runAndTally(sb, tally, {
			parameters: transferTo('={{ $json.quantity }}'),
			inputItems: [{ json: { quantity: '99999999999' } }, { json: { quantity: '3' } }],
			node: RETRY_ON_FAIL,
			continueOnFail: true,
		});
		expect(sb.ledger.transfers).toHaveLength(1);
		expect(errorOf(run.items[0])).toBe('The account balance is too low for this request');
		expect(run.items[0].json.outcome).toBe('rejected');
		expect(run.items[1].json.outcome).toBe('placed');
	});

	it('orders without a client order ID, item 1 refused: item 0 is placed once', async () => {
		const run = await runAndTally(sb, tally, {
			parameters: limitOrder({
				quantity: '={{ $json.quantity }}',
				options: { generateClientOrderId: false },
			}),
			inputItems: [{ json: { quantity: '0.01' } }, { json: { quantity: '99999999' } }],
			node: RETRY_ON_FAIL,
		});
		expect(sb.ledger.orders).toHaveLength(1);
		expect(run.error?.message).toBe('The account balance is too low for this request');
		expect(outcomeOf(run)).toBe('rejected');
	});
});

describe('issue 11, defect 2: a placed order is reported as placed', () => {
	it('committed, connection dropped: reported placed with the order, placed once', async () => {
		sb.setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: NEW_ORDER }] });
		const run = await runAndTally(sb, tally, {
			parameters: limitOrder({ newClientOrderId: 'row-1' }),
		});
		expect(run.error?.message).toBeUndefined();
		expect(run.items[0].json).toMatchObject({
			outcome: 'placed',
			clientOrderId: 'row-1',
			orderId: sb.ledger.orders[0]?.orderId,
		});
		expect(sb.ledger.orders).toHaveLength(1);
	});

	it('a batch entry with -1149 (create order failed) is rejected, not "already placed"', async () => {
		sb.otherHost.setReply({
			status: 200,
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ code: 0, result: [{ code: -1149, msg: 'Create order failed' }] }),
		});
		const run = await runAndTally(sb, tally, {
			...batchOf(1, { generateClientOrderId: false }),
			credentials: { baseUrl: sb.otherHost.url },
		});
		expect(run.items[0].json).toMatchObject({ success: false, outcome: 'rejected', code: -1149 });
		expect(run.items[0].json.alreadyPlaced).toBeUndefined();
	});
});

describe('issue 11, defect 3: top-level codes are numbers', () => {
	it('a batch answered with code "0000" is placed', async () => {
		sb.setFaults({ rules: [{ kind: 'batchCode0000', times: 1, path: PATHS.batch }] });
		const run = await runAndTally(sb, tally, batchOf(3));
		expect(run.error?.message).toBeUndefined();
		expect(run.items.map((item) => item.json.outcome)).toEqual(['placed', 'placed', 'placed']);
	});

	it('a non-zero top-level code with result[] keeps the per-order results', async () => {
		sb.setFaults({ rules: [{ kind: 'batchTopCodeNonZero', times: 1, path: PATHS.batch }] });
		const run = await runAndTally(sb, tally, batchOf(3, { generateClientOrderId: false }));
		expect(run.error?.message).toBeUndefined();
		expect(run.items.map((item) => item.json.outcome)).toEqual(['placed', 'placed', 'placed']);
		expect(sb.ledger.orders).toHaveLength(3);
	});
});

describe('issue 11, defect 4: batch results are matched by client order ID', () => {
	it('results in reverse order: every item gets its own order', async () => {
		sb.setFaults({ rules: [{ kind: 'batchReorder', times: 1, path: PATHS.batch }] });
		const run = await runAndTally(sb, tally, batchOf(3));
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
		sb.setFaults({ rules: [{ kind: 'batchEntryNoCode', times: 1, path: PATHS.batch }] });
		const run = await runAndTally(sb, tally, {
			...batchOf(2, { generateClientOrderId: false }),
			continueOnFail: true,
		});
		expect(run.items.map((item) => item.json.outcome)).toEqual(['unknown', 'unknown']);
	});

	it('a null entry with Continue On Fail: an item per order, the null one looked up and found placed', async () => {
		sb.setFaults({ rules: [{ kind: 'batchNullEntry', times: 1, path: PATHS.batch }] });
		const run = await runAndTally(sb, tally, { ...batchOf(3), continueOnFail: true });
		expect(run.error?.message).toBeUndefined();
		expect(run.items.map((item) => item.json.outcome)).toEqual(['placed', 'placed', 'placed']);
		expect(sb.ledger.orders).toHaveLength(3);
	});
});

describe('issue 11, defect 5: unknown outcomes are not rejections', () => {
	it('a transfer answered -1007 (timeout, executed): unknown, not "rejected"', async () => {
		sb.setFaults({ rules: [{ kind: 'unknownAfter', times: 1, path: PATHS.transfer }] });
		const run = await runAndTally(sb, tally, { parameters: transferTo('4') });
		expect(run.error?.message).toMatch(/^Unknown outcome/);
		expect(outcomeOf(run)).toBe('unknown');
		expect(sb.ledger.transfers).toHaveLength(1);
	});

	it('an order answered -1146 (creation timeout) but placed: looked up, reported placed', async () => {
		sb.setFaults({ rules: [{ kind: 'unknownAfter', times: 1, path: NEW_ORDER }] });
		const run = await runAndTally(sb, tally, { parameters: limitOrder() });
		expect(run.error?.message).toBeUndefined();
		expect(outcomeOf(run)).toBe('placed');
		expect(sb.ledger.orders).toHaveLength(1);
		expect(
			sb.ledger.requests.some(
				(request) => request.path === QUERY_ORDER && request.method === 'GET',
			),
		).toBe(true);
	});

	it('unknown, then a 429 on a later attempt: never "Nothing was executed" for a placed order', async () => {
		sb.setFaults({
			rules: [
				{ kind: 'dropAfter', times: 1, path: NEW_ORDER },
				{ kind: 'rateLimit', times: 20, path: NEW_ORDER, retryAfterSeconds: 0 },
			],
		});
		const run = await runAndTally(sb, tally, { parameters: limitOrder() });
		expect(run.error?.description ?? '').not.toContain('Nothing was executed');
		expect(outcomeOf(run)).toBe('placed');
		expect(sb.ledger.orders).toHaveLength(1);
	});
});

describe('issue 11, defect 6: Create refuses two items with the same client order ID', () => {
	it('before any request, naming the field', async () => {
		const run = await runAndTally(sb, tally, {
			parameters: limitOrder({ newClientOrderId: '={{ $json.id }}' }),
			inputItems: [{ json: { id: 'same' } }, { json: { id: 'other' } }, { json: { id: 'same' } }],
		});
		expect(run.error?.message).toBe(
			'Client Order ID: "same" is used by more than one order (items 0 and 2)',
		);
		expect(run.requests).toEqual([]);
	});
});

describe('issue 11, defect 7: error codes of the exchange family', () => {
	it('a wrong secret (0002) gets the secret advice', async () => {
		const run = await runAndTally(sb, tally, {
			parameters: transferTo('1'),
			credentials: { secretKey: 'not-the-secret' },
		});
		expect(run.error?.message).toBe('The service rejected the request signature');
		expect(run.error?.description).toContain('Secret Key');
		expect(outcomeOf(run)).toBe('rejected');
	});

	it('the signature text under another code (0001) gets the same advice', async () => {
		sb.setBehaviour({ signatureErrorCode: '0001' });
		const run = await runAndTally(sb, tally, {
			parameters: transferTo('1'),
			credentials: { secretKey: 'not-the-secret' },
		});
		expect(run.error?.message).toBe('The service rejected the request signature');
	});

	it('an unknown API key (0102) and a key without permission (-1005) get their advice', async () => {
		const badKey = await runAndTally(sb, tally, {
			parameters: transferTo('1'),
			credentials: { apiKey: 'nobody' },
		});
		expect(badKey.error?.message).toBe('The service did not accept the API key');
		const readOnly = await runAndTally(sb, tally, {
			parameters: transferTo('1'),
			key: DEMO_KEYS.readOnly,
		});
		expect(readOnly.error?.message).toBe('The API key is not allowed to do this');
	});
});
