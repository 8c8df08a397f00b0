/**
 * Transfer Between Accounts under injected faults: 5xx, connection drops before and after the
 * transfer was applied, 429 + Retry-After and latency, then the money-safety matrix of transfers.
 * The sandbox's own ledger is the oracle: no transfer may be made twice, every transfer whose
 * outcome is unknown must be reported as such.
 *
 * Determinism: each run has a sandbox to itself (a lane's, reset first) and sends one request at a
 * time, so the sandbox's seeded fault generator hits the same requests on every run. The scenario
 * runs in beforeAll; the tests then check what it produced.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { DEMO_ACCOUNTS, type LedgerRequest, type Sandbox } from '../../sandbox';
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
	runAndTally,
	splitAttempts,
	wasApplied,
	type Tally,
} from './lib';
import { runInLanes } from './lanes';
import { describeMoneySafety } from './moneySafety';
import { runScenarios, useFaultSandbox } from './scenarios';
import { describeTotals } from './totals';

// Transfers go at most once per second per key (the UAE documentation), so a run of 12 transfers
// takes 12 s or more: the hooks get 10 minutes, and the runs go in lanes (transferScenario).
const sandbox = useFaultSandbox(600_000);
const LANES = 15;

interface TransferCase {
	from: string;
	to: string;
	quantity: string;
	attempts: LedgerRequest[];
	output: INodeExecutionData[];
	/** The Retry-After the sandbox sent with each 429 attempt (rules send 0, random faults 1). */
	retryAfterMs: Map<LedgerRequest, number>;
}

/** The runs of the scenario, drawn in order from one seed: run `runIndex` and its 12 transfers. */
function transferPlan() {
	const rng = new Rng(101);
	const pairs: Array<[string, string]> = [
		[DEMO_ACCOUNTS.mainTrading, DEMO_ACCOUNTS.custody],
		[DEMO_ACCOUNTS.custody, DEMO_ACCOUNTS.mainTrading],
		[DEMO_ACCOUNTS.mainTrading, DEMO_ACCOUNTS.subTrading],
		[DEMO_ACCOUNTS.mainTrading, DEMO_ACCOUNTS.mainContract],
		[DEMO_ACCOUNTS.mainContract, DEMO_ACCOUNTS.mainTrading],
	];
	let seq = 0;
	return Array.from({ length: 15 }, (_, runIndex) => ({
		runIndex,
		inputs: Array.from({ length: 12 }, () => {
			seq++;
			const [from, to] = rng.pick(pairs);
			// A unique quantity identifies the transfer in the ledger ("0.11", "0.21", ... "0.1801").
			return { from, to, quantity: `0.${seq}1` };
		}),
	}));
}

type TransferRun = ReturnType<typeof transferPlan>[number];

/**
 * One run of 12 transfers on a sandbox of its own (reset first), one request at a time, so the
 * run's seed hits the same requests whichever lane runs it. Returns its cases and its transfers.
 */
async function transferRun(sb: Sandbox, tally: Tally, { runIndex, inputs }: TransferRun) {
	sb.reset();
	sb.setFaults({
		latencyMs: runIndex % 3 === 0 ? 5 : 0,
		// The run's first transfer request is answered 429 with Retry-After: 0 ...
		rules: [{ kind: 'rateLimit', times: 1, retryAfterSeconds: 0, path: PATHS.transfer }],
		// ... then seeded random faults; a random 429 carries Retry-After: 1.
		random: {
			seed: 1000 + runIndex,
			http5xx: 0.12,
			dropBefore: 0.06,
			dropAfter: 0.08,
			rateLimit: 0.02,
			paths: [PATHS.transfer],
		},
	});
	const run = await runAndTally(sb, tally, {
		parameters: {
			resource: 'account',
			operation: 'transferAsset',
			fromAccountId: '={{ $json.from }}',
			toAccountId: '={{ $json.to }}',
			coin: 'USDT',
			quantity: '={{ $json.quantity }}',
		},
		inputItems: inputs.map((json) => ({ json })),
		continueOnFail: true,
		executionId: `transfers-${runIndex}`,
	});
	const outputs = byInputItem(run.items);
	const transferRequests = run.requests.filter((request) => request.path === PATHS.transfer);
	const cases: TransferCase[] = inputs.map((input, index) => {
		const { attempts, retryAfterMs } = attemptsByQuantity(transferRequests, input.quantity);
		return { ...input, attempts, output: outputs.get(index) ?? [], retryAfterMs };
	});
	return { cases, transfers: [...sb.ledger.transfers] };
}

/**
 * The 15 runs in lanes: transfers go at most once a second per key and service, and each lane is
 * a service of its own, so the lanes' runs overlap instead of queueing behind one another's pacing.
 */
async function transferScenario(_sb: Sandbox, tally: Tally) {
	const runs = await runInLanes(transferPlan(), LANES, (sb, planned) =>
		transferRun(sb, tally, planned),
	);
	return {
		cases: runs.flatMap((run) => run.cases),
		ledger: { transfers: runs.flatMap((run) => run.transfers) },
	};
}

const { results, tallies, wallMs } = runScenarios(sandbox, { transfers: transferScenario });

describe('transfers under 5xx, drops before/after, 429 + Retry-After and latency', () => {
	it('never moves money twice: at most one processed attempt per transfer, ledger and balances agree', () => {
		expect(
			duplicates(results.transfers.ledger.transfers.map((transfer) => transfer.quantity)),
		).toEqual([]);
		for (const c of results.transfers.cases) {
			const { real } = splitAttempts(c.attempts);
			expect(real.length).toBeLessThanOrEqual(1);
			const applied = results.transfers.ledger.transfers.filter(
				(transfer) => transfer.quantity === c.quantity,
			);
			expect(applied).toHaveLength(real.filter(wasApplied).length);
		}
	});

	it('reports every transfer whose outcome is unknown as such, and every other outcome exactly', () => {
		const outcomes: Record<string, number> = {};
		for (const c of results.transfers.cases) {
			expect(c.output).toHaveLength(1);
			const { last } = splitAttempts(c.attempts);
			const json = c.output[0].json;
			const applied = results.transfers.ledger.transfers.find(
				(transfer) => transfer.quantity === c.quantity,
			);
			if (isUnknownOutcomeFault(last) && applied !== undefined) {
				// UAE rule: transfer client IDs: executed, its answer lost, found by its client order ID.
				expect(json).toMatchObject({
					outcome: 'placed',
					confirmedByLookup: true,
					orderId: applied.id,
					clientOrderId: applied.clientOrderId,
				});
				outcomes[`found after ${last.fault}`] = (outcomes[`found after ${last.fault}`] ?? 0) + 1;
			} else if (isUnknownOutcomeFault(last)) {
				expect(errorOf(c.output[0])).toMatch(UNKNOWN_OUTCOME);
				expect(String(json.description)).toMatch(/Transfer Between Accounts|balances/);
				outcomes[`unknown after ${last.fault}`] =
					(outcomes[`unknown after ${last.fault}`] ?? 0) + 1;
			} else {
				expect(last.status).toBe(200);
				expect(json).toMatchObject({
					outcome: 'placed',
					success: true,
					orderId: applied?.id,
					clientOrderId: applied?.clientOrderId,
				});
				outcomes.confirmed = (outcomes.confirmed ?? 0) + 1;
			}
		}
		// The seeds produce every kind of outcome.
		expect(Object.keys(outcomes).sort()).toEqual(
			expect.arrayContaining(['confirmed', 'found after dropAfter', 'unknown after dropBefore']),
		);
		expect(Object.keys(outcomes).some((key) => /http50[023]/.test(key))).toBe(true);
	});

	it('retries a 429 only after the Retry-After the service asked for', () => {
		let honoured = 0;
		for (const c of results.transfers.cases)
			honoured += expectRetryAfterHonoured(c.attempts, c.retryAfterMs);
		expect(honoured).toBeGreaterThan(15);
	});
});

describeTotals('transferAsset', tallies, wallMs);

describeMoneySafety(['transfer']);
