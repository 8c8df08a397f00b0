/**
 * The fault suite's totals over all operations: at least 1,000 requests, every kind of fault more
 * than 5 times, no secret anywhere. Each file that runs fault scenarios asserts its share; the
 * shares together assert the whole (requests: 200 + 300 + 60 + 220 + 80 + 140 = 1,000; each
 * fault kind is in at least one file's list). Create Many's share is small since a lost batch is
 * settled from a page or two of the order lists (issue 49) instead of 20 lookups; Create's
 * scenarios send more than its share makes up for.
 */
import { mergeTallies, type Tally } from './lib';

/** Each file's share of the totals: requests it sends at least, faults it draws more than 5 times. */
export const TOTALS_SHARE = {
	transferAsset: {
		requests: 200,
		faults: ['http500', 'http502', 'dropBefore', 'dropAfter', 'rateLimit'],
	},
	create: {
		requests: 300,
		faults: ['http500', 'http502', 'http503', 'dropBefore', 'dropAfter', 'rateLimit'],
	},
	createMany: { requests: 60, faults: ['rateLimit'] },
	getHistory: {
		requests: 220,
		faults: ['http500', 'http502', 'http503', 'dropBefore', 'dropAfter', 'rateLimit'],
	},
	clockOffsets: { requests: 80, faults: ['clockRejected'] },
	trigger: { requests: 140, faults: ['http502', 'dropAfter', 'rateLimit'] },
} as const;

/** The `totals` block of a file: its scenarios' tallies printed, then checked against its share. */
export function describeTotals(
	file: keyof typeof TOTALS_SHARE,
	tallies: Record<string, Tally>,
	wallMs: () => number,
): void {
	const share = TOTALS_SHARE[file];
	describe('totals', () => {
		it(`sends at least ${share.requests} requests, draws ${share.faults.join(', ')} more than 5 times each (its share of the suite's totals), and leaks no secret anywhere`, () => {
			const total = mergeTallies(Object.values(tallies));
			const byScenario = Object.fromEntries(
				Object.entries(tallies).map(([name, tally]) => [name, tally.requests]),
			);
			console.log(
				`fault suite, ${file}: ${total.requests} requests in ${total.runs} workflow runs, ${(wallMs() / 1000).toFixed(1)} s\n` +
					`requests by scenario: ${JSON.stringify(byScenario)}\nfaults by kind: ${JSON.stringify(total.faults)}`,
			);
			expect(total.requests).toBeGreaterThanOrEqual(share.requests);
			for (const kind of share.faults) expect(total.faults[kind] ?? 0).toBeGreaterThan(5);
			expect(total.secretLeaks).toEqual([]);
		});
	});
}
