import type { IDataObject } from 'n8n-workflow';

import { LIMITS } from '../../../../nodes/TradingService/constants';
import {
	FRESH_RUN_MS,
	derivedSeed,
	executionSeed,
	lostRunCheck,
	type ExecutionFacts,
} from '../../../../nodes/TradingService/writes/writeSession';

const facts = (overrides: Partial<ExecutionFacts> = {}): ExecutionFacts => ({
	establishedAt: 1_700_000_000_000,
	triggerNode: 'Webhook',
	triggerItems: [{ body: { orders: [1, 2] } }],
	instanceId: 'instance-a',
	workflowId: 'wf-1',
	nodeId: 'node-1',
	mode: 'webhook',
	...overrides,
});

describe('the execution seed of generated client order IDs', () => {
	it('is 24 hex characters, the same for the same execution facts whatever the mode', () => {
		const seed = derivedSeed(facts());
		expect(seed).toMatch(/^[0-9a-f]{24}$/);
		// A retry carries the execution's facts unchanged; only the mode differs.
		expect(derivedSeed(facts({ mode: 'retry' }))).toBe(seed);
		// Keys built in another order are the same facts.
		expect(derivedSeed(facts({ triggerItems: [{ body: { orders: [1, 2] } }] }))).toBe(seed);
	});

	it.each<[string, Partial<ExecutionFacts>]>([
		['another start time', { establishedAt: 1_700_000_000_001 }],
		['another instance', { instanceId: 'instance-b' }],
		['another workflow', { workflowId: 'wf-2' }],
		['another node', { nodeId: 'node-2' }],
		['another trigger', { triggerNode: 'Schedule Trigger' }],
		['other trigger items (two executions started in one millisecond)', { triggerItems: [{}] }],
	])('differs for %s', (_, change) => {
		expect(derivedSeed(facts(change))).not.toBe(derivedSeed(facts()));
	});

	it('is derived and kept in the node context; a kept one is used again', () => {
		const context: IDataObject = {};
		const first = executionSeed(context, facts());
		expect(first).toEqual({ seed: derivedSeed(facts()), recoverable: true });
		expect(context.clientOrderIdNonce).toBe(first.seed);
		expect(executionSeed(context, facts())).toEqual(first);
	});

	it('without an establishment time it is random: a crashed run cannot be recognised', () => {
		const context: IDataObject = {};
		const seed = executionSeed(context, undefined);
		expect(seed.recoverable).toBe(false);
		expect(seed.seed).toMatch(/^[0-9a-f]{24}$/);
		expect(executionSeed({}, undefined).seed).not.toBe(seed.seed);
		// A random seed saved in the context stays, and stays unrecoverable.
		expect(executionSeed(context, facts())).toEqual({ seed: seed.seed, recoverable: false });
	});
});

describe('whether a run may follow a lost one', () => {
	const start = facts().establishedAt!;

	it('a retry checks, and trusts "not found" only once the receive window of the crashed run has passed', () => {
		expect(lostRunCheck(facts({ mode: 'retry' }), true, false, start + 60_000)).toEqual({
			since: start,
			settledFrom: start + 60_000 + LIMITS.maxRecvWindowMs + LIMITS.futureToleranceMs,
			why: 'retry',
		});
	});

	it(`a run that starts more than ${FRESH_RUN_MS / 1000} s after its execution checks at once (a re-delivery comes after the dead worker's lock expired)`, () => {
		expect(lostRunCheck(facts(), true, false, start + FRESH_RUN_MS + 1)).toEqual({
			since: start,
			settledFrom: 0,
			why: 'late',
		});
	});

	it('a fresh run of a fresh execution does not check', () => {
		expect(lostRunCheck(facts(), true, false, start + FRESH_RUN_MS)).toBeUndefined();
	});

	it('a run whose earlier try ended (the ledger is whole) does not check, nor one that cannot be recognised', () => {
		expect(lostRunCheck(facts({ mode: 'retry' }), true, true, start + 60_000)).toBeUndefined();
		expect(lostRunCheck(facts({ mode: 'retry' }), false, false, start + 60_000)).toBeUndefined();
		expect(lostRunCheck(undefined, true, false, start + 60_000)).toBeUndefined();
	});
});
