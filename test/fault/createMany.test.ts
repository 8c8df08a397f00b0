/**
 * Create Many (batches of orders) under injected faults: 5xx, connection drops before and after a
 * batch was placed, 429 and latency; a whole workflow run again with a business key as Client
 * Order ID; then the money-safety matrix of batches. The sandbox's own ledger is the oracle: no
 * order may be placed twice, each order is reported as the ledger has it.
 *
 * Determinism: the scenario sends one request at a time, so the sandbox's seeded fault generator
 * hits the same requests on every run. It runs in beforeAll; the tests then check what it
 * produced.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import type { LedgerRequest, Sandbox } from '../../sandbox';
import {
	PATHS,
	Rng,
	UNKNOWN_OUTCOME,
	byInputItem,
	duplicates,
	errorOf,
	runAndTally,
	splitAttempts,
	wasApplied,
	type Tally,
} from './lib';
import { describeMoneySafety } from './moneySafety';
import { runScenarios, useFaultSandbox } from './scenarios';
import { describeTotals } from './totals';

const sandbox = useFaultSandbox();

interface BatchOrderCase {
	clientOrderId: string;
	symbol: string;
	output: INodeExecutionData[];
}

interface BatchAttempts {
	body: string;
	attempts: LedgerRequest[];
}

async function batchScenario(sb: Sandbox, tally: Tally) {
	const rng = new Rng(404);
	const cases: BatchOrderCase[] = [];
	const batches: BatchAttempts[] = [];
	for (let runIndex = 0; runIndex < 6; runIndex++) {
		sb.setFaults({
			latencyMs: runIndex % 2 === 1 ? 4 : 0,
			rules: [{ kind: 'rateLimit', times: 1, retryAfterSeconds: 0, path: PATHS.batch }],
			random: {
				seed: 4000 + runIndex,
				http5xx: 0.12,
				dropBefore: 0.08,
				dropAfter: 0.12,
				paths: [PATHS.batch],
			},
		});
		const count = rng.int(41, 65);
		const inputs = Array.from({ length: count }, () => ({
			symbol: rng.pick(['BTCUSDT', 'ETHUSDT', 'SOLUSDT']),
			side: rng.pick(['BUY', 'SELL']),
			price: String(rng.int(1, 9)),
			quantity: `0.00${rng.int(1, 99)}`,
		}));
		const executionId = `batches-${runIndex}`;
		const run = await runAndTally(sb, tally, {
			parameters: {
				resource: 'order',
				operation: 'createMany',
				inputMode: 'items',
				symbol: '={{ $json.symbol }}',
				side: '={{ $json.side }}',
				type: 'LIMIT',
				price: '={{ $json.price }}',
				quantity: '={{ $json.quantity }}',
			},
			inputItems: inputs.map((json) => ({ json })),
			continueOnFail: true,
			executionId,
		});
		const outputs = byInputItem(run.items);
		inputs.forEach((input, index) => {
			cases.push({
				clientOrderId: String(outputs.get(index)?.[0]?.json.clientOrderId ?? ''),
				symbol: input.symbol,
				output: outputs.get(index) ?? [],
			});
		});
		// Attempts of one batch carry the same body (the same orders, the same client order IDs).
		for (const request of run.requests.filter((candidate) => candidate.path === PATHS.batch)) {
			const known = batches.find((batch) => batch.body === request.body);
			if (known) known.attempts.push(request);
			else batches.push({ body: request.body, attempts: [request] });
		}
	}

	// The whole workflow run again (a new execution) with a business key mapped into Client Order
	// ID, as the README advises: every order is recognised by its ID, nothing is placed twice.
	// (Retries within one execution reuse the generated IDs: see test/nodes/.../createMany.test.ts.)
	sb.clearFaults();
	const ordersBefore = sb.ledger.orders.length;
	const rerunInputs = Array.from({ length: 45 }, (_, index) => ({
		symbol: ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'][index % 3],
		side: 'BUY',
		price: '2',
		quantity: '0.01',
		rowId: `sheet-row-${index}`,
	}));
	const parameters = {
		resource: 'order',
		operation: 'createMany',
		inputMode: 'items',
		symbol: '={{ $json.symbol }}',
		side: '={{ $json.side }}',
		type: 'LIMIT',
		price: '={{ $json.price }}',
		quantity: '={{ $json.quantity }}',
		newClientOrderId: '={{ $json.rowId }}',
	};
	const first = await runAndTally(sb, tally, {
		parameters,
		inputItems: rerunInputs.map((json) => ({ json })),
		executionId: 'rerun',
	});
	const placedByFirst = sb.ledger.orders.length - ordersBefore;
	const second = await runAndTally(sb, tally, {
		parameters,
		inputItems: rerunInputs.map((json) => ({ json })),
		executionId: 'rerun-2',
	});
	const placedBySecond = sb.ledger.orders.length - ordersBefore - placedByFirst;
	// The ledger as the scenario left it (the sandbox is reset before each test).
	const ledger = { orders: [...sb.ledger.orders] };
	return { ledger, cases, batches, rerun: { first, second, placedByFirst, placedBySecond } };
}

const { results, tallies, wallMs } = runScenarios(sandbox, { batches: batchScenario });

describe('Create Many under faults', () => {
	it('sends batches of at most 20 orders of one symbol', () => {
		for (const batch of results.batches.batches) {
			const orders = JSON.parse(batch.body) as Array<{ symbol: string }>;
			expect(orders.length).toBeGreaterThan(0);
			expect(orders.length).toBeLessThanOrEqual(20);
			expect(new Set(orders.map((order) => order.symbol)).size).toBe(1);
		}
	});

	it('never places an order twice; never sends a batch again, not even after an unknown outcome (429s aside)', () => {
		const ledger = results.batches.ledger.orders;
		expect(duplicates(ledger.map((order) => order.clientOrderId))).toEqual([]);
		for (const batch of results.batches.batches) {
			const { real } = splitAttempts(batch.attempts);
			expect(real).toHaveLength(1);
			const ids = (JSON.parse(batch.body) as Array<{ newClientOrderId: string }>).map(
				(order) => order.newClientOrderId,
			);
			const placed = ledger.filter((order) => ids.includes(order.clientOrderId));
			expect(placed).toHaveLength(real.some(wasApplied) ? ids.length : 0);
		}
	});

	it('reports each order as the ledger has it: placed with its order (also after a lost answer), else unknown', () => {
		const outcomes: Record<string, number> = {};
		for (const c of results.batches.cases) {
			expect(c.output).toHaveLength(1);
			const batch = results.batches.batches.find((candidate) =>
				candidate.body.includes(`"${c.clientOrderId}"`),
			);
			expect(batch).toBeDefined();
			const { real } = splitAttempts(batch!.attempts);
			const json = c.output[0].json;
			const placed = results.batches.ledger.orders.filter(
				(order) => order.clientOrderId === c.clientOrderId,
			);
			expect(placed.length).toBeLessThanOrEqual(1);
			if (placed.length === 1) {
				expect(json).toMatchObject({
					outcome: 'placed',
					success: true,
					clientOrderId: c.clientOrderId,
					symbol: c.symbol,
				});
				expect((json.order as { orderId?: string }).orderId).toBe(placed[0].orderId);
				const lostAnswer = real.some(
					(attempt) => attempt.fault !== undefined && attempt.appliedStatus === 200,
				);
				outcomes[lostAnswer ? 'placed, answer lost' : 'placed'] =
					(outcomes[lostAnswer ? 'placed, answer lost' : 'placed'] ?? 0) + 1;
			} else {
				expect(json.outcome).toBe('unknown');
				expect(errorOf(c.output[0])).toMatch(UNKNOWN_OUTCOME);
				outcomes.unknown = (outcomes.unknown ?? 0) + 1;
			}
		}
		expect(Object.keys(outcomes)).toEqual(
			expect.arrayContaining(['placed', 'placed, answer lost']),
		);
	});

	it('a re-run with a business key as Client Order ID sends nothing (each key is checked first) and reports every order alreadyPlaced', () => {
		const { first, second, placedByFirst, placedBySecond } = results.batches.rerun;
		expect(first.error).toBeUndefined();
		expect(placedByFirst).toBe(45);
		expect(first.requests.filter((request) => request.path === PATHS.batch)).toHaveLength(3);
		expect(second.error).toBeUndefined();
		expect(second.items).toHaveLength(45);
		for (const item of second.items)
			expect(item.json).toMatchObject({ outcome: 'placed', success: true, alreadyPlaced: true });
		expect(placedBySecond).toBe(0);
		// Each business key is checked before anything is sent: 15 orders of each of the 3 symbols,
		// looked up from one page of open and one of past orders per symbol; no batch is sent.
		expect(second.requests.filter((request) => request.path === PATHS.batch)).toHaveLength(0);
		const gets = (path: string) =>
			second.requests.filter((request) => request.method === 'GET' && request.path === path);
		expect(gets('/api/v1/spot/openOrders')).toHaveLength(3);
		expect(gets('/api/v1/spot/tradeOrders')).toHaveLength(3);
	});
});

describeTotals('createMany', tallies, wallMs);

describeMoneySafety(['createManyGenerated', 'createManyUserId', 'createManyPlain']);
