/**
 * Create (one order per item) under injected faults: 5xx, connection drops before and after the
 * order was placed, 429 + Retry-After and latency, with the node's generated client order IDs and
 * without; then the money-safety matrix of single orders. The sandbox's own ledger is the oracle:
 * no order may be placed twice, every order whose outcome is unknown must be looked up (with a
 * client order ID) or reported as unknown.
 *
 * Determinism: each run has a sandbox to itself (a lane's, reset first) and sends one request at a
 * time, so the sandbox's seeded fault generator hits the same requests on every run. The scenarios
 * run in beforeAll, one after the other; the tests then check what each produced.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { generatedClientOrderId } from '../../tools/harness/node';
import type { LedgerRequest, Sandbox } from '../../sandbox';
import {
	PATHS,
	Rng,
	UNKNOWN_OUTCOME,
	attemptsByQuantity,
	byInputItem,
	duplicates,
	errorOf,
	expectRetryAfterHonoured,
	isUnknownOutcomeFault,
	queryOf,
	runAndTally,
	splitAttempts,
	wasApplied,
	type Tally,
} from './lib';
import { runInLanes } from './lanes';
import { describeMoneySafety } from './moneySafety';
import { runScenarios, useFaultSandbox } from './scenarios';
import { describeTotals } from './totals';

const sandbox = useFaultSandbox();
// Each scenario's runs go in lanes of sandboxes (lanes.ts), one run per lane at a time.
const LANES = 6;

// ------------------------------------------------------------------ scenario: generated client order IDs

interface OrderCase {
	clientOrderId: string;
	attempts: LedgerRequest[];
	output: INodeExecutionData[];
}

/** The scenario's 6 runs of 20 orders, drawn in order from one seed. */
function singleOrderPlan() {
	const rng = new Rng(202);
	let seq = 0;
	return Array.from({ length: 6 }, (_, runIndex) => ({
		runIndex,
		inputs: Array.from({ length: 20 }, () => {
			seq++;
			return {
				symbol: rng.pick(['BTCUSDT', 'ETHUSDT', 'SOLUSDT']),
				side: rng.pick(['BUY', 'SELL']),
				price: '10',
				quantity: `0.0${seq}1`,
			};
		}),
	}));
}

type SingleOrderRun = ReturnType<typeof singleOrderPlan>[number];

/** One run on a sandbox of its own (reset first): its cases and the orders it placed. */
async function singleOrderRun(sb: Sandbox, tally: Tally, { runIndex, inputs }: SingleOrderRun) {
	sb.reset();
	sb.setFaults({
		latencyMs: runIndex % 2 === 0 ? 3 : 0,
		rules: [{ kind: 'rateLimit', times: 1, retryAfterSeconds: 0, path: PATHS.order }],
		random: {
			seed: 2000 + runIndex,
			http5xx: 0.07,
			dropBefore: 0.05,
			dropAfter: 0.07,
			paths: [PATHS.order],
		},
	});
	const type = runIndex % 2 === 0 ? 'LIMIT' : 'MARKET';
	const executionId = `single-orders-${runIndex}`;
	const run = await runAndTally(sb, tally, {
		parameters: {
			resource: 'order',
			operation: 'create',
			symbol: '={{ $json.symbol }}',
			side: '={{ $json.side }}',
			type,
			...(type === 'LIMIT' ? { price: '={{ $json.price }}' } : {}),
			quantity: '={{ $json.quantity }}',
		},
		inputItems: inputs.map((json) => ({ json })),
		continueOnFail: true,
		executionId,
	});
	const outputs = byInputItem(run.items);
	const cases: OrderCase[] = inputs.map((_, index) => {
		// The node generated this item's client order ID; every attempt for the item carries it.
		const generated = generatedClientOrderId(index);
		const attempts = run.requests.filter(
			(request) =>
				request.path === PATHS.order &&
				generated.test(queryOf(request).get('newClientOrderId') ?? ''),
		);
		const clientOrderId = queryOf(attempts[0]).get('newClientOrderId') ?? '';
		expect(
			attempts.every((request) => queryOf(request).get('newClientOrderId') === clientOrderId),
		).toBe(true);
		return { clientOrderId, attempts, output: outputs.get(index) ?? [] };
	});
	return { cases, orders: [...sb.ledger.orders] };
}

/** The runs in lanes (lanes.ts): they overlap while one waits to look an unanswered order up. */
async function singleOrderScenario(_sb: Sandbox, tally: Tally) {
	const runs = await runInLanes(singleOrderPlan(), LANES, (sb, planned) =>
		singleOrderRun(sb, tally, planned),
	);
	return {
		cases: runs.flatMap((run) => run.cases),
		ledger: { orders: runs.flatMap((run) => run.orders) },
	};
}

// ------------------------------------------------------------------ scenario: no client order IDs

interface PlainOrderCase {
	quantity: string;
	attempts: LedgerRequest[];
	output: INodeExecutionData[];
	retryAfterMs: Map<LedgerRequest, number>;
}

/** The scenario's 6 runs of 20 orders, drawn in order from one seed. */
function plainOrderPlan() {
	const rng = new Rng(303);
	let seq = 0;
	return Array.from({ length: 6 }, (_, runIndex) => ({
		runIndex,
		inputs: Array.from({ length: 20 }, () => {
			seq++;
			return {
				symbol: rng.pick(['BTCUSDT', 'ETHUSDT', 'SOLUSDT']),
				side: rng.pick(['BUY', 'SELL']),
				quantity: `0.${seq}1`,
			};
		}),
	}));
}

/** One run on a sandbox of its own (reset first): its cases and the orders it placed. */
async function plainOrderRun(
	sb: Sandbox,
	tally: Tally,
	{ runIndex, inputs }: ReturnType<typeof plainOrderPlan>[number],
) {
	sb.reset();
	sb.setFaults({
		rules: [{ kind: 'rateLimit', times: 1, retryAfterSeconds: 0, path: PATHS.order }],
		random: {
			seed: 3000 + runIndex,
			http5xx: 0.08,
			dropBefore: 0.06,
			dropAfter: 0.08,
			rateLimit: 0.02,
			paths: [PATHS.order],
		},
	});
	const run = await runAndTally(sb, tally, {
		parameters: {
			resource: 'order',
			operation: 'create',
			symbol: '={{ $json.symbol }}',
			side: '={{ $json.side }}',
			type: 'LIMIT',
			price: '1',
			quantity: '={{ $json.quantity }}',
			options: { generateClientOrderId: false },
		},
		inputItems: inputs.map((json) => ({ json })),
		continueOnFail: true,
		executionId: `plain-orders-${runIndex}`,
	});
	const outputs = byInputItem(run.items);
	const orderRequests = run.requests.filter((request) => request.path === PATHS.order);
	const cases: PlainOrderCase[] = inputs.map((input, index) => {
		const { attempts, retryAfterMs } = attemptsByQuantity(orderRequests, input.quantity);
		return { quantity: input.quantity, attempts, output: outputs.get(index) ?? [], retryAfterMs };
	});
	return { cases, orders: [...sb.ledger.orders] };
}

/** The runs in lanes (lanes.ts), as singleOrderScenario's. */
async function plainOrderScenario(_sb: Sandbox, tally: Tally) {
	const runs = await runInLanes(plainOrderPlan(), LANES, (sb, planned) =>
		plainOrderRun(sb, tally, planned),
	);
	return {
		cases: runs.flatMap((run) => run.cases),
		ledger: { orders: runs.flatMap((run) => run.orders) },
	};
}

// ------------------------------------------------------------------ run the scenarios

const { results, tallies, wallMs } = runScenarios(sandbox, {
	singleOrders: singleOrderScenario,
	plainOrders: plainOrderScenario,
});

describe('single orders with generated client order IDs', () => {
	it('never places an order twice, whatever the faults', () => {
		const ledger = results.singleOrders.ledger.orders;
		expect(duplicates(ledger.map((order) => order.clientOrderId))).toEqual([]);
		for (const c of results.singleOrders.cases) {
			const { real } = splitAttempts(c.attempts);
			expect(real).toHaveLength(1);
			const placed = ledger.filter((order) => order.clientOrderId === c.clientOrderId);
			expect(placed).toHaveLength(real.some(wasApplied) ? 1 : 0);
		}
	});

	it("settles an unknown outcome by looking the order up: placed with the service's order, else unknown; never sent again (not found proves nothing)", () => {
		const outcomes: Record<string, number> = {};
		for (const c of results.singleOrders.cases) {
			expect(c.output).toHaveLength(1);
			const { real } = splitAttempts(c.attempts);
			const json = c.output[0].json;
			// Sent once (429s aside): an order whose lookup finds nothing may still be created by the
			// exchange, so it is never sent again.
			expect(real).toHaveLength(1);
			const placed = results.singleOrders.ledger.orders.filter(
				(order) => order.clientOrderId === c.clientOrderId,
			);
			expect(placed.length).toBeLessThanOrEqual(1);
			if (placed.length === 1) {
				expect(json).toMatchObject({
					outcome: 'placed',
					orderId: placed[0].orderId,
					clientOrderId: c.clientOrderId,
				});
				const lostAnswer = real.some(
					(attempt) => attempt.fault !== undefined && attempt.appliedStatus === 200,
				);
				const kind = lostAnswer ? 'placed, answer lost' : 'placed';
				outcomes[kind] = (outcomes[kind] ?? 0) + 1;
			} else {
				expect(json.outcome).toBe('unknown');
				expect(errorOf(c.output[0])).toMatch(UNKNOWN_OUTCOME);
				expect(String(json.description)).toContain(c.clientOrderId);
				if (isUnknownOutcomeFault(real[0]) && !wasApplied(real[0]))
					outcomes['unknown, not placed, not sent again'] =
						(outcomes['unknown, not placed, not sent again'] ?? 0) + 1;
				outcomes.unknown = (outcomes.unknown ?? 0) + 1;
			}
		}
		expect(Object.keys(outcomes)).toEqual(
			expect.arrayContaining([
				'placed',
				'placed, answer lost',
				'unknown, not placed, not sent again',
			]),
		);
	});
});

describe('single orders without client order IDs (generation off)', () => {
	it('never sends an order again after an unknown outcome, and reports it as unknown', () => {
		const ledger = results.plainOrders.ledger.orders;
		expect(duplicates(ledger.map((order) => order.origQty))).toEqual([]);
		let unknown = 0;
		for (const c of results.plainOrders.cases) {
			const { real, last } = splitAttempts(c.attempts);
			expect(real).toHaveLength(1);
			expect(c.output).toHaveLength(1);
			const placed = ledger.filter((order) => order.origQty === c.quantity);
			expect(placed).toHaveLength(wasApplied(last) ? 1 : 0);
			if (isUnknownOutcomeFault(last)) {
				expect(errorOf(c.output[0])).toMatch(UNKNOWN_OUTCOME);
				unknown++;
			} else {
				expect(c.output[0].json.orderId).toBe(placed[0].orderId);
			}
			expectRetryAfterHonoured(c.attempts, c.retryAfterMs);
		}
		expect(unknown).toBeGreaterThan(10);
	});
});

describeTotals('create', tallies, wallMs);

describeMoneySafety(['createGenerated', 'createUserId', 'createPlain']);
