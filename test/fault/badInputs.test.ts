/**
 * Bad input: ≥ 1,000 generated invalid inputs (seeded) across every operation. Each must come
 * back as an error that names the field, before anything is sent: the sandbox records 0 requests.
 * Valid inputs at the edges (mixed symbols, > 20 orders per symbol) must be chunked, not refused.
 *
 * Every case changes exactly one field of an otherwise valid input; the items of a run are all
 * invalid (with Continue On Fail each item gets its own error), so any request is a failure.
 */
import type { IDataObject } from 'n8n-workflow';

import { DEMO_ACCOUNTS, startSandbox, type Sandbox } from '../../sandbox';
import {
	DAY,
	HOUR,
	PATHS,
	Rng,
	byInputItem,
	errorOf,
	newTally,
	runAndTally,
	type Tally,
} from './lib';

jest.setTimeout(120_000);

let sb: Sandbox;
const tally: Tally = newTally();
beforeAll(async () => {
	sb = await startSandbox({ rateLimit: false });
});
afterAll(async () => {
	await sb.stop();
});

// ------------------------------------------------------------------ value pools

/** Any value an item's JSON can hold. */
type Value = IDataObject[string];

const BAD_DECIMALS: Value[] = [
	'1e-7',
	'-1',
	'0',
	'1,5',
	' 1',
	'1 ',
	'',
	'0.000',
	'.5',
	'5.',
	'abc',
	'1.2.3',
	'+1',
	'0x10',
	'１',
	'00.5',
	'1e5',
	'NaN',
	'Infinity',
	'--1',
	'1_000',
	'٣',
	'0.0',
	'-0.5',
	'1/2',
	'$1',
	'1.5e3',
	' ',
	'\t1',
	'1\n',
	1e-7,
	-1,
	0,
	1e21,
	-0.001,
	Number.NaN,
	Number.POSITIVE_INFINITY,
	null,
	true,
	false,
	{},
	[],
	['1'],
];
const BAD_ACCOUNT_IDS: Value[] = [
	'',
	'abc',
	'12a',
	'-1',
	'1.5',
	'1'.repeat(21),
	' 10001',
	'10001 ',
	'10 001',
	'１０００１',
	'0x10',
	'1e5',
	'+10001',
	null,
	1.5,
	-5,
	true,
	{},
	[],
	'10001;10005',
	'10001\n',
];
const BAD_COINS: Value[] = [
	'',
	'US DT',
	'USDT!',
	'A'.repeat(21),
	'ü',
	'-',
	'USDT\n',
	'US.DT',
	null,
	123,
	true,
	{},
	['USDT'],
];
const BAD_SYMBOLS: Value[] = [
	'',
	'btcusdt',
	'BTC-USDT',
	'B',
	'A'.repeat(33),
	'BTC USDT',
	'BTC/USDT',
	'BTCUSDT ',
	'ßTC',
	null,
	123,
	{},
	['BTCUSDT'],
];
const BAD_SIDES: Value[] = ['HOLD', 'buy', 'Sell', 'BUY ', 'B', 0, 1, true, {}];
// Not here: strings V8's Date.parse turns into some date although they are not valid ISO 8601
// ("-1" and "1" become 2001-01-01, "2026-02-30" becomes 2026-03-02): see knownBugs.test.ts.
const BAD_TIMES: Value[] = [
	'yesterday',
	'abc',
	-5,
	1.5,
	'2026-13-45T00:00:00Z',
	'not a date',
	true,
	{},
	[],
	'12:00',
	'2026-01-01T25:00:00Z',
];
const BAD_FLOW_TYPES: Value[] = [
	0,
	3,
	5,
	31,
	50,
	52,
	99,
	901,
	999,
	-1,
	1.5,
	'abc',
	'32',
	null,
	true,
];
const BAD_LIMITS: Value[] = [
	0,
	501,
	-1,
	2.5,
	1e9,
	'10',
	'',
	'all',
	Number.NaN,
	true,
	{},
	1000,
	-500,
];
const BAD_CLIENT_IDS: Value[] = [
	'x'.repeat(256),
	'y'.repeat(300),
	'has space',
	'tab\tid',
	'ünïcode',
	'new\nline',
	' lead',
	123,
	true,
	{},
];
const BAD_STP: Value[] = ['NONE', 'expire_taker', 'EXPIRE', 'CANCEL_BOTH', 1, true];
const BAD_RECV_WINDOWS: Value[] = [0, -1, 60_001, 1.5, 1e9, '5000', Number.NaN];

// ------------------------------------------------------------------ cases

interface BadCase {
	/** Which parameter set the case runs with (one workflow run per group). */
	group: string;
	parameters: IDataObject;
	item: IDataObject;
	/** The field the error must name (the start of its message). */
	label: string;
}

const now = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();

const transferParameters = {
	resource: 'account',
	operation: 'transferAsset',
	fromAccountId: '={{ $json.from }}',
	toAccountId: '={{ $json.to }}',
	coin: '={{ $json.coin }}',
	quantity: '={{ $json.quantity }}',
};
const validTransfer = {
	from: DEMO_ACCOUNTS.mainTrading,
	to: DEMO_ACCOUNTS.custody,
	coin: 'USDT',
	quantity: '1',
};

const historyParameters = (returnAll: boolean) => ({
	resource: 'account',
	operation: 'getHistory',
	flowType: '={{ $json.flowType }}',
	startTime: '={{ $json.start }}',
	endTime: '={{ $json.end }}',
	returnAll,
	...(returnAll ? {} : { limit: '={{ $json.limit }}' }),
});
const validHistory = { flowType: 32, start: iso(now - HOUR), end: iso(now), limit: 10 };

const orderParameters = (
	operation: 'create' | 'createMany',
	type: string,
	sizeIn: 'quantity' | 'amount' = 'quantity',
) => ({
	resource: 'order',
	operation,
	...(operation === 'createMany' ? { inputMode: 'items' } : {}),
	symbol: '={{ $json.symbol }}',
	side: '={{ $json.side }}',
	type,
	...(type === 'MARKET'
		? { [sizeIn]: `={{ $json.${sizeIn} }}` }
		: { price: '={{ $json.price }}', quantity: '={{ $json.quantity }}' }),
	[type === 'MARKET' ? 'timeInForceMarket' : 'timeInForceLimit']: '={{ $json.tif }}',
	newClientOrderId: '={{ $json.cid }}',
	stpMode: '={{ $json.stp }}',
	...(operation === 'create' ? { options: { recvWindow: '={{ $json.rw }}' } } : {}),
});
const validOrder = (type: string) => ({
	symbol: 'BTCUSDT',
	side: 'BUY',
	price: '10',
	quantity: '0.1',
	amount: '50',
	tif: type === 'MARKET' ? 'IOC' : 'GTC',
	cid: '',
	stp: 'EXPIRE_TAKER',
	rw: 5000,
});

const jsonParameters = {
	resource: 'order',
	operation: 'createMany',
	inputMode: 'json',
	ordersJson: '={{ $json.orders }}',
};
const jsonOrder = (rng: Rng): IDataObject => {
	const type = rng.pick(['LIMIT', 'LIMIT_MAKER', 'MARKET']);
	const order: IDataObject = {
		symbol: rng.pick(['BTCUSDT', 'ETHUSDT', 'SOLUSDT']),
		side: rng.pick(['BUY', 'SELL']),
		type,
	};
	if (type === 'MARKET') {
		if (rng.chance(0.5)) order.quantity = '0.01';
		else order.amount = '20';
	} else {
		order.price = String(rng.int(1, 99));
		order.quantity = '0.5';
	}
	if (rng.chance(0.3)) order.timeInForce = type === 'MARKET' ? 'IOC' : 'GTC';
	return order;
};

function generateCases(seed: number): BadCase[] {
	const rng = new Rng(seed);
	const cases: BadCase[] = [];
	const add = (group: string, parameters: IDataObject, item: IDataObject, label: string) =>
		cases.push({ group, parameters, item, label });

	// Transfers: each field, each bad value; equal accounts.
	for (const value of BAD_ACCOUNT_IDS) {
		add('transfer', transferParameters, { ...validTransfer, from: value }, 'From Account ID');
		add('transfer', transferParameters, { ...validTransfer, to: value }, 'To Account ID');
	}
	for (const account of Object.values(DEMO_ACCOUNTS))
		add(
			'transfer',
			transferParameters,
			{ ...validTransfer, from: account, to: account },
			'To Account ID',
		);
	for (const value of BAD_COINS)
		add('transfer', transferParameters, { ...validTransfer, coin: value }, 'Coin');
	for (const value of BAD_DECIMALS)
		add('transfer', transferParameters, { ...validTransfer, quantity: value }, 'Quantity');

	// History: times, order of the range, retention, flow type, limit; page and Return All.
	for (const returnAll of [false, true]) {
		const group = returnAll ? 'historyAll' : 'history';
		const parameters = historyParameters(returnAll);
		for (const value of BAD_TIMES) {
			add(group, parameters, { ...validHistory, start: value }, 'Start');
			add(group, parameters, { ...validHistory, end: value }, 'End');
		}
		for (const value of BAD_FLOW_TYPES)
			add(group, parameters, { ...validHistory, flowType: value }, 'Flow Type');
		for (let index = 0; index < 12; index++) {
			const end = now - rng.int(0, 5 * 24) * HOUR;
			// Start after End (equal is a valid one-millisecond range: both bounds are inclusive).
			add(
				group,
				parameters,
				{ ...validHistory, start: iso(end + rng.int(1, 48) * HOUR), end: iso(end) },
				'Start',
			);
			add(group, parameters, { ...validHistory, start: end + 1, end }, 'Start');
		}
		for (const [flowType, days] of [
			[1, 7],
			[2, 7],
			[32, 30],
			[51, 30],
			[900, 30],
			[904, 30],
			[906, 30],
			[910, 30],
		]) {
			for (let index = 0; index < 3; index++) {
				const start = now - days * DAY - rng.int(1, 30) * HOUR;
				add(
					group,
					parameters,
					{ ...validHistory, flowType, start: iso(start), end: iso(now) },
					'Start',
				);
			}
		}
		if (!returnAll)
			for (const value of BAD_LIMITS)
				add(group, parameters, { ...validHistory, limit: value }, 'Limit');
	}

	// Single orders and Create Many (one order per item), every order field.
	for (const operation of ['create', 'createMany'] as const) {
		for (const type of ['LIMIT', 'LIMIT_MAKER']) {
			const group = `${operation}-${type}`;
			const parameters = orderParameters(operation, type);
			const valid = validOrder(type);
			for (const value of BAD_SYMBOLS)
				add(group, parameters, { ...valid, symbol: value }, 'Symbol');
			for (const value of BAD_SIDES) add(group, parameters, { ...valid, side: value }, 'Side');
			for (const value of BAD_DECIMALS) add(group, parameters, { ...valid, price: value }, 'Price');
			for (const value of BAD_DECIMALS)
				add(group, parameters, { ...valid, quantity: value }, 'Quantity');
			for (const value of ['IOC', 'FOK', 'gtc', 'GTX'])
				add(group, parameters, { ...valid, tif: value }, 'Time In Force');
			for (const value of BAD_CLIENT_IDS)
				add(group, parameters, { ...valid, cid: value }, 'Client Order ID');
			for (const value of BAD_STP)
				add(group, parameters, { ...valid, stp: value }, 'Self-Trade Prevention');
			if (operation === 'create')
				for (const value of BAD_RECV_WINDOWS)
					add(group, parameters, { ...valid, rw: value }, 'Receive Window (Ms)');
		}
		for (const sizeIn of ['quantity', 'amount'] as const) {
			const group = `${operation}-MARKET-${sizeIn}`;
			const parameters = orderParameters(operation, 'MARKET', sizeIn);
			const valid = validOrder('MARKET');
			const label = sizeIn === 'quantity' ? 'Quantity' : 'Amount';
			for (const value of BAD_DECIMALS) {
				// A missing size is reported as "Quantity: a MARKET order needs Quantity or Amount".
				const missing = value === '' || value === null;
				add(group, parameters, { ...valid, [sizeIn]: value }, missing ? 'Quantity' : label);
			}
			for (const value of ['GTC', 'FOK'])
				add(group, parameters, { ...valid, tif: value }, 'Time In Force');
			for (const value of BAD_SYMBOLS.slice(0, 6))
				add(group, parameters, { ...valid, symbol: value }, 'Symbol');
		}
	}

	// Create Many, JSON mode: one bad order hidden among 1-24 valid ones of mixed symbols.
	const jsonShape: Array<[Value, string]> = [
		['[{', 'Orders (JSON)'],
		['{"symbol":"BTCUSDT"}', 'Orders (JSON)'],
		['"orders"', 'Orders (JSON)'],
		['42', 'Orders (JSON)'],
		['not json', 'Orders (JSON)'],
		[{ symbol: 'BTCUSDT' }, 'Orders (JSON)'],
	];
	for (const [orders, label] of jsonShape) add('json', jsonParameters, { orders }, label);
	const orderFieldFaults: Array<[string, Value[], (order: IDataObject) => boolean]> = [
		['symbol', BAD_SYMBOLS, () => true],
		['side', BAD_SIDES, () => true],
		['type', ['STOP', 'limit', 'MARKET_MAKER', 1, null], () => true],
		[
			'price',
			BAD_DECIMALS.filter((value) => value !== '' && value !== null),
			(order) => order.type !== 'MARKET',
		],
		[
			'quantity',
			BAD_DECIMALS.filter((value) => value !== '' && value !== null),
			(order) => order.quantity !== undefined,
		],
		[
			'amount',
			BAD_DECIMALS.filter((value) => value !== '' && value !== null),
			(order) => order.amount !== undefined,
		],
		['newClientOrderId', BAD_CLIENT_IDS, () => true],
		['stpMode', BAD_STP, () => true],
		['timeInForce', ['FOK', 'GTX', 'gtc'], () => true],
	];
	for (let index = 0; index < 260; index++) {
		const orders = Array.from({ length: rng.int(1, 24) }, () => jsonOrder(rng));
		const position = rng.int(0, orders.length - 1);
		const order = orders[position];
		const kind = rng.int(0, 9);
		let field: string;
		if (kind < 9) {
			const [name, values, applies] = orderFieldFaults[kind];
			if (!applies(order)) {
				index--;
				continue;
			}
			field = name;
			order[name] = rng.pick(values);
		} else {
			// Structural faults of one order.
			const structural = rng.int(0, 5);
			if (structural === 0) {
				orders[position] = rng.pick<Value>([1, 'order', null, [order]]) as unknown as IDataObject;
				add(
					'json',
					jsonParameters,
					{ orders: rng.chance(0.5) ? orders : JSON.stringify(orders) },
					`Orders (JSON)[${position}]`,
				);
				continue;
			}
			if (structural === 1) {
				order.foo = 'bar';
				field = 'foo';
			} else if (structural === 2) {
				// MARKET with both sizes, or none.
				order.type = 'MARKET';
				delete order.price;
				delete order.timeInForce;
				if (rng.chance(0.5)) {
					order.quantity = '1';
					order.amount = '1';
					field = 'amount';
				} else {
					delete order.quantity;
					delete order.amount;
					field = 'quantity';
				}
			} else if (structural === 3) {
				order.type = 'MARKET';
				delete order.timeInForce;
				order.price = '5';
				order.quantity = '1';
				delete order.amount;
				field = 'price';
			} else if (structural === 4) {
				order.type = rng.pick(['LIMIT', 'LIMIT_MAKER']);
				delete order.timeInForce;
				order.price = '5';
				order.quantity = '1';
				order.amount = '10';
				field = 'amount';
			} else {
				order.type = 'LIMIT';
				delete order.timeInForce;
				delete order.amount;
				order.quantity = '1';
				delete order.price;
				field = 'price';
			}
		}
		add(
			'json',
			jsonParameters,
			{ orders: rng.chance(0.5) ? orders : JSON.stringify(orders) },
			`Orders (JSON)[${position}].${field}`,
		);
	}
	// The same client order ID twice among the orders of an item.
	for (let index = 0; index < 20; index++) {
		const orders = Array.from({ length: rng.int(2, 24) }, () => jsonOrder(rng));
		const first = rng.int(0, orders.length - 2);
		const second = rng.int(first + 1, orders.length - 1);
		orders[first].newClientOrderId = `dup-${index}`;
		orders[second].newClientOrderId = `dup-${index}`;
		add('json', jsonParameters, { orders }, 'Client Order ID');
	}
	return cases;
}

const CASES = generateCases(20_261_121);

/** Runs the cases group by group, up to 60 items per workflow run, all with Continue On Fail. */
async function runCases(cases: BadCase[]) {
	const results: Array<{
		badCase: BadCase;
		error?: string;
		description?: string;
		outputs: number;
	}> = [];
	const groups = new Map<string, BadCase[]>();
	for (const badCase of cases)
		groups.set(badCase.group, [...(groups.get(badCase.group) ?? []), badCase]);
	let requests = 0;
	for (const [group, members] of groups) {
		for (let start = 0; start < members.length; start += 60) {
			const chunk = members.slice(start, start + 60);
			const run = await runAndTally(sb, tally, {
				parameters: chunk[0].parameters,
				inputItems: chunk.map((badCase) => ({ json: badCase.item })),
				continueOnFail: true,
				executionId: `bad-${group}-${start}`,
			});
			requests += run.requests.length;
			if (run.error)
				throw new Error(`run of group ${group} failed as a whole: ${run.error.message}`);
			const outputs = byInputItem(run.items);
			chunk.forEach((badCase, index) => {
				const output = outputs.get(index) ?? [];
				results.push({
					badCase,
					error: errorOf(output[0]),
					description: output[0]?.json.description as string | undefined,
					outputs: output.length,
				});
			});
		}
	}
	return { results, requests };
}

describe('generated bad inputs', () => {
	let outcome: Awaited<ReturnType<typeof runCases>>;
	beforeAll(async () => {
		sb.reset();
		outcome = await runCases(CASES);
	});

	it('are at least 1,000, across every operation', () => {
		const groups = new Set(CASES.map((badCase) => badCase.group));
		console.log(
			`bad inputs: ${CASES.length} cases in ${tally.runs} runs, groups: ${[...groups].join(', ')}`,
		);
		expect(CASES.length).toBeGreaterThanOrEqual(1000);
		for (const group of [
			'transfer',
			'history',
			'historyAll',
			'create-LIMIT',
			'createMany-LIMIT',
			'create-MARKET-amount',
			'json',
		]) {
			expect(groups.has(group)).toBe(true);
		}
	});

	it('each yields exactly one error that names the field and says how to fix it', () => {
		const wrong = outcome.results.filter(
			(result) =>
				result.outputs !== 1 ||
				result.error === undefined ||
				!result.error.startsWith(`${result.badCase.label}: `) ||
				!result.description,
		);
		expect(
			wrong.map((result) => ({
				group: result.badCase.group,
				item: result.badCase.item,
				expected: result.badCase.label,
				got: result.error,
			})),
		).toEqual([]);
	});

	it('and nothing reaches the service: 0 requests', () => {
		expect(outcome.requests).toBe(0);
		expect(sb.ledger.requests).toEqual([]);
		expect(sb.ledger.orders).toEqual([]);
		expect(sb.ledger.transfers).toEqual([]);
	});

	it('no secret appears in any output or error', () => {
		expect(tally.secretLeaks).toEqual([]);
	});
});

describe('without Continue On Fail', () => {
	it('one bad order among valid ones stops Create Many before the first request, naming the field', async () => {
		sb.reset();
		const rng = new Rng(77);
		for (let index = 0; index < 20; index++) {
			const items = Array.from({ length: rng.int(21, 60) }, () => ({
				json: { ...validOrder('LIMIT'), symbol: rng.pick(['BTCUSDT', 'ETHUSDT']) } as IDataObject,
			}));
			const position = rng.int(0, items.length - 1);
			const [field, label, value] = rng.pick([
				['price', 'Price', '1,5'],
				['quantity', 'Quantity', '1e-7'],
				['symbol', 'Symbol', 'btc'],
				['cid', 'Client Order ID', 'z'.repeat(256)],
			] as const);
			items[position].json[field] = value;
			const run = await runAndTally(sb, tally, {
				parameters: orderParameters('createMany', 'LIMIT'),
				inputItems: items,
				executionId: `strict-${index}`,
			});
			expect(run.error?.message.startsWith(`${label}: `)).toBe(true);
			expect(run.requests).toEqual([]);
		}
		expect(sb.ledger.orders).toEqual([]);
	});

	it('a bad transfer or history input fails the node naming the field, 0 requests', async () => {
		sb.reset();
		const cases = CASES.filter((badCase) => ['transfer', 'history'].includes(badCase.group)).filter(
			(_, index) => index % 5 === 0,
		);
		for (const badCase of cases) {
			const run = await runAndTally(sb, tally, {
				parameters: badCase.parameters,
				inputItems: [{ json: badCase.item }],
			});
			expect({
				item: badCase.item,
				message: run.error?.message.slice(0, badCase.label.length + 2),
			}).toEqual({ item: badCase.item, message: `${badCase.label}: ` });
		}
		expect(sb.ledger.requests).toEqual([]);
		expect(tally.secretLeaks).toEqual([]);
	});
});

describe('valid edges: mixed symbols and more than 20 orders per symbol are chunked, not refused', () => {
	it('JSON mode: items with up to 70 orders of 3 symbols go out in full batches of one symbol', async () => {
		sb.reset();
		const rng = new Rng(88);
		const items = Array.from({ length: 4 }, () => ({
			json: {
				orders: Array.from({ length: rng.int(21, 70) }, () => ({
					symbol: rng.pick(['BTCUSDT', 'ETHUSDT', 'SOLUSDT']),
					side: 'BUY',
					type: 'LIMIT',
					price: String(rng.int(1, 5)),
					quantity: '0.01',
				})),
			},
		}));
		const run = await runAndTally(sb, tally, {
			parameters: jsonParameters,
			inputItems: items,
			executionId: 'chunking-json',
		});
		expect(run.error).toBeUndefined();
		const all = items.flatMap((item) => item.json.orders);
		const perSymbol = new Map<string, number>();
		for (const order of all) perSymbol.set(order.symbol, (perSymbol.get(order.symbol) ?? 0) + 1);
		const expectedBatches = [...perSymbol.values()].reduce(
			(sum, count) => sum + Math.ceil(count / 20),
			0,
		);
		const batches = run.requests.filter((request) => request.path === PATHS.batch);
		expect(run.requests).toHaveLength(expectedBatches);
		for (const batch of batches) {
			const orders = JSON.parse(batch.body) as Array<{ symbol: string }>;
			expect(orders.length).toBeLessThanOrEqual(20);
			expect(new Set(orders.map((order) => order.symbol)).size).toBe(1);
		}
		// Full batches: only the last batch of each symbol may be short.
		const shortBatches = batches.filter(
			(batch) => (JSON.parse(batch.body) as unknown[]).length < 20,
		);
		expect(shortBatches.length).toBeLessThanOrEqual(perSymbol.size);
		expect(sb.ledger.orders).toHaveLength(all.length);
		expect(run.items).toHaveLength(all.length);
		expect(run.items.every((item) => item.json.success === true)).toBe(true);
		expect(new Set(sb.ledger.orders.map((order) => order.clientOrderId)).size).toBe(all.length);
	});

	it('item mode: 65 items of 2 symbols, one order each', async () => {
		sb.reset();
		const items = Array.from({ length: 65 }, (_, index) => ({
			json: { ...validOrder('LIMIT'), symbol: index % 3 === 0 ? 'ETHUSDT' : 'BTCUSDT' },
		}));
		const run = await runAndTally(sb, tally, {
			parameters: orderParameters('createMany', 'LIMIT'),
			inputItems: items,
			executionId: 'chunking-items',
		});
		expect(run.error).toBeUndefined();
		// 22 ETHUSDT (2 batches) + 43 BTCUSDT (3 batches)
		expect(run.requests).toHaveLength(5);
		expect(sb.ledger.orders).toHaveLength(65);
		expect(run.items.map((item) => (item.pairedItem as { item: number }).item)).toEqual(
			items.map((_, index) => index),
		);
	});
});
