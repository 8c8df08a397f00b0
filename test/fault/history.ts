/**
 * History helpers of the fault suite: what the service holds for a query (from the records the
 * sandbox was seeded with), and the node's parameters for it.
 */
import { DEMO_ACCOUNTS, type HistoryRecord } from '../../sandbox';

export interface HistoryQuery {
	flowType: number;
	accountType?: number;
	startTime: number;
	endTime: number;
}

/** The account type of each demo account, as the history filter sees it. */
export const ACCOUNT_TYPE_OF: Record<string, number> = {
	[DEMO_ACCOUNTS.mainTrading]: 1,
	[DEMO_ACCOUNTS.mainContract]: 3,
	[DEMO_ACCOUNTS.custody]: 5,
	[DEMO_ACCOUNTS.fiat]: 6,
	[DEMO_ACCOUNTS.subTrading]: 1,
};

/** What the service holds for a query, newest first (created desc, then id desc), from the seeded records. */
export function expectedHistory(
	records: HistoryRecord[],
	query: HistoryQuery,
	accountTypeOf: Record<string, number>,
): string[] {
	const cmpId = (a: string, b: string) =>
		a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
	return records
		.filter(
			(record) =>
				record.flowTypeValue === query.flowType &&
				(query.accountType === undefined ||
					accountTypeOf[record.accountId] === query.accountType) &&
				Number(record.created) >= query.startTime &&
				Number(record.created) <= query.endTime,
		)
		.sort((a, b) => Number(b.created) - Number(a.created) || cmpId(b.id, a.id))
		.map((record) => record.id);
}

/** Get History's parameters for a query, plus any others (Return All, Limit). */
export function historyParameters(query: HistoryQuery, extra: Record<string, unknown> = {}) {
	return {
		resource: 'account',
		operation: 'getHistory',
		flowType: query.flowType,
		accountType: query.accountType ?? 0,
		startTime: new Date(query.startTime).toISOString(),
		endTime: new Date(query.endTime).toISOString(),
		...extra,
	};
}
