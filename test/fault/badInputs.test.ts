/**
 * Bad input: ≥ 1,000 generated invalid inputs (seeded) across every operation. Each must come
 * back as an error that names the field, before anything is sent: the sandbox records 0 requests.
 * Valid inputs at the edges (mixed symbols, > 20 orders per symbol) must be chunked, not refused.
 *
 * Every case (badInputCases.ts) changes exactly one field of an otherwise valid input; the items
 * of a run are all invalid (with Continue On Fail each item gets its own error), so any request
 * is a failure.
 */
import type { IDataObject } from 'n8n-workflow';

import type { Ledger } from '../../sandbox';
import { useSandbox } from '../support/sandbox';
import { CASES, jsonParameters, orderParameters, validOrder, type BadCase } from './badInputCases';
import { PATHS, Rng, byInputItem, errorOf, newTally, runAndTally, type Tally } from './lib';

jest.setTimeout(120_000);

const sandbox = useSandbox({ rateLimit: false });
const tally: Tally = newTally();

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
			const run = await runAndTally(sandbox(), tally, {
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
	/** The ledger as the cases left it (the sandbox is reset before each test). */
	let ledger: Pick<Ledger, 'requests' | 'orders' | 'transfers'>;
	beforeAll(async () => {
		outcome = await runCases(CASES);
		const sb = sandbox();
		ledger = {
			requests: [...sb.ledger.requests],
			orders: [...sb.ledger.orders],
			transfers: [...sb.ledger.transfers],
		};
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
		expect(ledger.requests).toEqual([]);
		expect(ledger.orders).toEqual([]);
		expect(ledger.transfers).toEqual([]);
	});

	it('no secret appears in any output or error', () => {
		expect(tally.secretLeaks).toEqual([]);
	});
});

describe('without Continue On Fail', () => {
	it('one bad order among valid ones stops Create Many before the first request, naming the field', async () => {
		const sb = sandbox();
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
		const sb = sandbox();
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
		const sb = sandbox();
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
		// the batches, after one read of the symbol rules
		expect(run.requests.map((request) => request.path)).toEqual([
			PATHS.exchangeInfo,
			...batches.map(() => PATHS.batch),
		]);
		expect(batches).toHaveLength(expectedBatches);
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
		const sb = sandbox();
		const items = Array.from({ length: 65 }, (_, index) => ({
			json: { ...validOrder('LIMIT'), symbol: index % 3 === 0 ? 'ETHUSDT' : 'BTCUSDT' },
		}));
		const run = await runAndTally(sb, tally, {
			parameters: orderParameters('createMany', 'LIMIT'),
			inputItems: items,
			executionId: 'chunking-items',
		});
		expect(run.error).toBeUndefined();
		// the symbol rules, then 22 ETHUSDT (2 batches) + 43 BTCUSDT (3 batches)
		expect(run.requests).toHaveLength(6);
		expect(run.requests.filter((request) => request.path === PATHS.batch)).toHaveLength(5);
		expect(sb.ledger.orders).toHaveLength(65);
		expect(run.items.map((item) => (item.pairedItem as { item: number }).item)).toEqual(
			items.map((_, index) => index),
		);
	});
});
