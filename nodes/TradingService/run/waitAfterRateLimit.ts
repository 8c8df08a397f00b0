import type { INode } from 'n8n-workflow';

import { LIMITS } from '../constants';
import type { NodeVersion } from '../descriptions/pickers';
import { inputError } from '../helpers/validation';

/** What the option is read from: the run context, which builds its client with it. */
interface OptionSource {
	readonly node: INode;
	readonly version: NodeVersion;
	parameter(name: string, itemIndex: number, fallback?: unknown): unknown;
}

/**
 * The Wait After a Rate Limit option of a run, as the longest wait for a suspension it allows:
 * LIMITS.maxRateLimitWaitMs when on (the default, and always in version 1), 0 when off. It decides
 * whether writes are sent a minute later, so only true or false is accepted, before anything is
 * sent. Read once, from the first item.
 */
export function rateLimitWaitMs(run: OptionSource): number {
	if (run.version < 2) return LIMITS.maxRateLimitWaitMs;
	const value = run.parameter('options.waitAfterRateLimit', 0, true);
	if (value === true) return LIMITS.maxRateLimitWaitMs;
	if (value === false) return 0;
	const given = typeof value === 'string' ? `"${value}"` : (JSON.stringify(value) ?? 'nothing');
	throw inputError(
		run.node,
		'Wait After a Rate Limit',
		`${given} is not true or false`,
		'Turn the option on or off, or give an expression that results in the boolean true or false. Nothing was sent.',
		0,
	);
}
