import { LIMITS } from '../constants';
import { inputError } from '../helpers/validation';
import type { RunContext } from './runContext';

/**
 * The Parallel Requests option of a run: how many requests it keeps in flight at once. Read once,
 * from the first item (like the HTTP Request node's batching); only a whole number from 1 to the
 * most the option takes is accepted, before anything is sent. Version 2 only.
 */
export function parallelRequests(run: RunContext): number {
	// Version 1 keeps its behaviour: one request after the other.
	if (run.version < 2) return 1;
	const value = run.parameter('options.parallelRequests', 0, LIMITS.defaultParallelRequests);
	if (
		typeof value === 'number' &&
		Number.isInteger(value) &&
		value >= 1 &&
		value <= LIMITS.maxParallelRequests
	)
		return value;
	const given = typeof value === 'string' ? `"${value}"` : (JSON.stringify(value) ?? 'nothing');
	throw inputError(
		run.node,
		'Parallel Requests',
		`${given} is not a whole number from 1 to ${LIMITS.maxParallelRequests}`,
		`Enter a whole number from 1 (one request after the other) to ${LIMITS.maxParallelRequests}, or remove the option to keep ${LIMITS.defaultParallelRequests} requests in flight. Nothing was sent.`,
		0,
	);
}
