/**
 * Get History pages that must not become records: Return All over 3,000 funding fees (6 pages)
 * with one bad answer forced on one page: a page longer than asked for, a page in no order, IDs
 * as bare 64-bit integers, a redirect, a malformed or drip-fed answer; and one legal surprise, a
 * page oldest first (the UAE documentation's order). Each run ends with exactly the seeded records
 * (IDs as strings, newest first) or with an error and no records: never a partial, re-ordered or
 * rounded result.
 */
import { DEFAULT_RETRY_POLICY } from '../../nodes/TradingService/transport';
import type { FaultKind } from '../../sandbox';
import { MALFORMED_KINDS, REDIRECT_KINDS } from '../../sandbox/faults';
import { useSandbox } from '../support/sandbox';
import { ACCOUNT_TYPE_OF, expectedHistory, historyParameters, type HistoryQuery } from './history';
import { DAY, HOUR, PATHS, newTally, runAndTally } from './lib';

jest.setTimeout(180_000);

const sandbox = useSandbox({ rateLimit: false });

describe('history Return All under bad pages, redirects, malformed and drip-fed answers', () => {
	const BAD_PAGE_FAULTS: readonly FaultKind[] = [
		'historyOversize',
		'historyOldestFirst',
		'historyUnordered',
		'numericIds',
		...REDIRECT_KINDS,
		'dripFeed',
		...MALFORMED_KINDS,
	];
	interface BadPageCase {
		fault: FaultKind;
		page: number;
		got: string[];
		error?: string;
		reachedOtherHost: number;
		drawn: boolean;
	}
	const cases: BadPageCase[] = [];
	let expected: string[] = [];

	beforeAll(async () => {
		// A drip-fed answer must end at the attempt's deadline: 3 s instead of the product's 30 s.
		const deadline = jest.replaceProperty(DEFAULT_RETRY_POLICY, 'timeoutMs', 3000);
		const sb = sandbox();
		const now = sb.now();
		const seeded = sb.seedRecords({
			flowType: 32,
			count: 3000,
			startTime: now - 10 * DAY,
			endTime: now - HOUR,
			perMillisecond: 2,
			seed: 12,
		});
		const query: HistoryQuery = { flowType: 32, startTime: now - 11 * DAY, endTime: now };
		expected = expectedHistory(seeded, query, ACCOUNT_TYPE_OF);
		const tally = newTally();
		for (const fault of BAD_PAGE_FAULTS) {
			for (const page of [0, 3]) {
				const otherHostBefore = sb.otherHost.requests.length;
				// Rules apply in order, one request each: `page` clean pages (numericIds answers
				// normally, only writing IDs as bare integers), then the bad answer.
				sb.setFaults({
					rules: [
						{ kind: 'numericIds', times: page, path: PATHS.history },
						{ kind: fault, times: 1, path: PATHS.history, redirectStatus: page === 0 ? 307 : 303 },
					],
				});
				const run = await runAndTally(sb, tally, {
					parameters: historyParameters(query, { returnAll: true }),
					continueOnFail: true,
					executionId: `bad-page-${fault}-${page}`,
				});
				const errorItem = run.items.find((item) => item.json.error !== undefined);
				cases.push({
					fault,
					page,
					got: run.items
						.filter((item) => item.json.error === undefined)
						.map((item) => String(item.json.id)),
					error:
						run.error?.message ??
						(errorItem === undefined
							? undefined
							: `${String(errorItem.json.error)} ${String(errorItem.json.description ?? '')}`),
					reachedOtherHost: sb.otherHost.requests.length - otherHostBefore,
					drawn: run.requests.some((request) => request.fault === fault),
				});
			}
		}
		sb.clearFaults();
		deadline.restore();
		console.log(
			[
				`history Return All under bad answers: ${cases.length} runs of ${expected.length} records`,
				...cases.map(
					(c) =>
						`  ${c.fault} on page ${c.page + 1}: ${c.error === undefined ? `${c.got.length} records` : `error: ${c.error.replace(/\s+/g, ' ').slice(0, 110)}`}`,
				),
			].join('\n'),
		);
	}, 240_000);
	it('draws every bad answer, on the first page and on a later one', () => {
		for (const fault of BAD_PAGE_FAULTS) {
			for (const page of [0, 3])
				expect([
					fault,
					page,
					cases.find((c) => c.fault === fault && c.page === page)?.drawn,
				]).toEqual([fault, page, true]);
		}
	});

	it('ends with exactly the seeded records, IDs as strings, or with an error and no records', () => {
		for (const c of cases) {
			if (c.error === undefined)
				expect([c.fault, c.page, c.got]).toEqual([c.fault, c.page, expected]);
			else expect([c.fault, c.page, c.got]).toEqual([c.fault, c.page, []]);
		}
	});

	it('refuses a page longer than asked for and a page in no order, saying so', () => {
		for (const c of cases.filter(
			(candidate) =>
				candidate.fault === 'historyOversize' || candidate.fault === 'historyUnordered',
		)) {
			expect([c.fault, c.page, c.error]).toEqual([
				c.fault,
				c.page,
				expect.stringMatching(/more records than asked for|in no order/i),
			]);
		}
	});

	it('UAE rule: history ascending page (oldest first) among newest-first ones is read, not refused: every record once, newest first', () => {
		for (const c of cases.filter((candidate) => candidate.fault === 'historyOldestFirst')) {
			expect([c.fault, c.page, c.error, c.got]).toEqual([c.fault, c.page, undefined, expected]);
		}
	});

	it('keeps 64-bit IDs sent as bare integers digit for digit', () => {
		for (const c of cases.filter((candidate) => candidate.fault === 'numericIds'))
			expect(c.got).toEqual(expected);
	});

	it('follows no redirect: nothing reaches the other host, and a redirected page is an error naming the redirect', () => {
		for (const c of cases.filter((candidate) => candidate.fault.startsWith('redirect'))) {
			expect(c.reachedOtherHost).toBe(0);
			expect([c.fault, c.page, c.error]).toEqual([
				c.fault,
				c.page,
				expect.stringMatching(/redirect/i),
			]);
		}
	});
});
