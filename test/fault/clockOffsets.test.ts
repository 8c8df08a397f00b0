/**
 * Server clock offsets inside and outside the receive window, for every signed operation (Get
 * History, Transfer Between Accounts, Create, Create Many): inside it every operation succeeds;
 * outside it each is rejected once, not retried, nothing is executed, and the measured offset is
 * reported. The sandbox's ledger says what was executed.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { LedgerRequest, Sandbox } from '../../sandbox';
import { HOUR, PATHS, errorOf, runAndTally, type Tally } from './lib';
import { runScenarios, useFaultSandbox } from './scenarios';
import { describeTotals } from './totals';

const sandbox = useFaultSandbox();

interface ClockCase {
	offsetMs: number;
	recvWindow: number;
	inside: boolean;
	operation: string;
	outputs: INodeExecutionData[];
	requests: LedgerRequest[];
	ordersPlaced: number;
	transfersMade: number;
}

async function clockScenario(sb: Sandbox, tally: Tally) {
	const now = sb.now();
	sb.seedRecords({
		flowType: 32,
		count: 50,
		startTime: now - 2 * HOUR,
		endTime: now - HOUR,
		seed: 7,
	});
	// Inside: -1000 < offset <= recvWindow; every case keeps ≥ 900 ms from the edges, so a slow
	// machine's travel time cannot move a request across.
	const offsets: Array<[number, number, boolean]> = [
		[0, 5000, true],
		[-600, 5000, true],
		[2500, 5000, true],
		[4000, 5000, true],
		[-2500, 5000, false],
		[-5000, 5000, false],
		[5600, 5000, false],
		[30_000, 5000, false],
		[7000, 8000, true],
		[9000, 8000, false],
		[-2500, 8000, false],
	];
	const cases: ClockCase[] = [];
	let seq = 0;
	for (const [offsetMs, recvWindow, inside] of offsets) {
		sb.setFaults({ clockOffsetMs: offsetMs, latencyMs: 2 });
		const credentials = { recvWindow };
		const operations: Array<[string, IDataObject, number]> = [
			[
				'getHistory',
				{
					resource: 'account',
					operation: 'getHistory',
					flowType: 32,
					startTime: new Date(now - 3 * HOUR).toISOString(),
					endTime: new Date(now).toISOString(),
					limit: 5,
				},
				2,
			],
			[
				'transferAsset',
				{
					resource: 'account',
					operation: 'transferAsset',
					fromAccountId: '10001',
					toAccountId: '10005',
					coin: 'USDT',
					quantity: '={{ $json.quantity }}',
				},
				2,
			],
			[
				'create',
				{
					resource: 'order',
					operation: 'create',
					symbol: 'BTCUSDT',
					side: 'BUY',
					type: 'LIMIT',
					price: '3',
					quantity: '={{ $json.quantity }}',
				},
				2,
			],
			[
				'createMany',
				{
					resource: 'order',
					operation: 'createMany',
					inputMode: 'items',
					symbol: 'ETHUSDT',
					side: 'BUY',
					type: 'LIMIT',
					price: '3',
					quantity: '={{ $json.quantity }}',
				},
				3,
			],
		];
		for (const [operation, parameters, itemCount] of operations) {
			const ordersBefore = sb.ledger.orders.length;
			const transfersBefore = sb.ledger.transfers.length;
			const run = await runAndTally(sb, tally, {
				parameters,
				credentials,
				inputItems: Array.from({ length: itemCount }, () => ({
					json: { quantity: `0.${++seq}1` },
				})),
				continueOnFail: true,
				executionId: `clock-${offsetMs}-${recvWindow}-${operation}`,
			});
			cases.push({
				offsetMs,
				recvWindow,
				inside,
				operation,
				outputs: run.items,
				requests: run.requests,
				ordersPlaced: sb.ledger.orders.length - ordersBefore,
				transfersMade: sb.ledger.transfers.length - transfersBefore,
			});
		}
	}
	sb.clearFaults();
	return { cases };
}

const { results, tallies, wallMs } = runScenarios(sandbox, { clock: clockScenario });

describe('server clock offsets inside and outside the receive window', () => {
	it('inside the window every operation succeeds', () => {
		for (const c of results.clock.cases.filter((candidate) => candidate.inside)) {
			for (const item of c.outputs) expect(errorOf(item)).toBeUndefined();
			if (c.operation === 'transferAsset') expect(c.transfersMade).toBe(2);
			if (c.operation === 'create') expect(c.ordersPlaced).toBe(2);
			if (c.operation === 'createMany') expect(c.ordersPlaced).toBe(3);
		}
	});

	it('outside it every operation is rejected once, not retried, nothing executed, and the offset is reported', () => {
		for (const c of results.clock.cases.filter((candidate) => !candidate.inside)) {
			expect(c.ordersPlaced + c.transfersMade).toBe(0);
			expect(c.outputs.length).toBeGreaterThan(0);
			const signed = c.requests.filter((request) => request.path !== PATHS.time);
			// One request per item (per batch for Create Many), each answered -1021.
			expect(signed.every((request) => request.code === '-1021')).toBe(true);
			expect(signed).toHaveLength(c.operation === 'createMany' ? 1 : 2);
			for (const item of c.outputs) {
				expect(errorOf(item)).toMatch(/receive window/);
				const description = String(item.json.description);
				expect(description).toContain('This request was not executed');
				const measured = /The service clock is (\d+) ms (ahead of|behind)/.exec(description);
				expect(measured).not.toBeNull();
				const signedOffset = Number(measured![1]) * (measured![2] === 'behind' ? -1 : 1);
				expect(Math.abs(signedOffset - c.offsetMs)).toBeLessThan(500);
			}
		}
	});
});

describeTotals('clockOffsets', tallies, wallMs);
