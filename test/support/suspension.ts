/**
 * How long the node keeps a key suspended after a 429, in the jest suites.
 *
 * The product holds a suspension for at least the documented minute (LIMITS.rateLimitSuspensionMs),
 * even when the answer's Retry-After says less. The jest suites inject 429s with short
 * Retry-Afters to test what a run does when refused (every write placed once, the report, the
 * trigger's watermark), not how long the exchange suspends a key: setup-env.ts shortens the floor
 * to a second for them, so each injected 429 costs a second, not a minute. A file whose subject is
 * the suspension, or whose sandbox suspends a key for the real minute (`rateLimitRule: 'uae'`,
 * the documented request rates exceeded), calls useDocumentedSuspension(). The real-n8n suites
 * (e2e, queue) run the product unchanged.
 */
import { LIMITS } from '../../nodes/TradingService/constants';

const DOCUMENTED_MS = LIMITS.rateLimitSuspensionMs;

/** The floor the jest suites run with unless a file asks for the documented minute. */
export const SHORT_SUSPENSION_MS = 1000;

function setFloor(ms: number): void {
	(LIMITS as { rateLimitSuspensionMs: number }).rateLimitSuspensionMs = ms;
}

/** For setup-env.ts: every jest file starts with the short floor. */
export function shortenSuspensions(): void {
	setFloor(SHORT_SUSPENSION_MS);
}

/** The documented minute for this file's tests. */
export function useDocumentedSuspension(): void {
	beforeAll(() => setFloor(DOCUMENTED_MS));
	afterAll(() => setFloor(SHORT_SUSPENSION_MS));
}
