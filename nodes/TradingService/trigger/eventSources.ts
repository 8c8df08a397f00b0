import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { HistoryWalk, type WalkResult } from '../helpers/history';
import { compareIds, type HistoryRecord } from '../helpers/historyPage';
import { FillsWalk, fillsOldestFirst, type AccountFill } from '../helpers/trades';
import type { ServiceClient } from '../transport';
import {
	fillsQueryKey,
	historyQuery,
	isFuturesFills,
	isHistoryEvent,
	type EventSettings,
	type FillsSettings,
	type RecordFilter,
	type TriggerSettings,
} from './pollParameters';
import { futuresFillsSource } from './futuresFills';
import { queryKey, type KeyedRecord } from './pollState';
import { ACCOUNT_ENDPOINTS } from '../account/endpoints';

/**
 * What differs between the account history and the account's trades: how pages are read and
 * checked, and how records are ordered, keyed and filtered.
 */
export interface EventSource<R extends IDataObject> {
	/** The state's query key: when it changes, the trigger starts over like a first activation. */
	query: string;
	pageSize: number;
	/** Wording of the warning when an unfinished catch-up fell out of the retention window. */
	expiredCatchUp: string;
	key(record: R): KeyedRecord;
	oldestFirst(a: R, b: R): number;
	matches(record: R): boolean;
	/** Reads a range, each record once, newest first. */
	read(client: ServiceClient, range: ReadRange, options: ReadOptions<R>): Promise<RangeRead<R>>;
	/** Fetch Test Event's error when the read found no record that matches. */
	noTestEvent(read: RangeRead<R>): NodeOperationError;
}

/** A time range (both bounds inclusive, ms); fills: only those with a trade ID below `belowId`. */
export interface ReadRange {
	startTime: number;
	endTime: number;
	belowId?: string;
}

interface ReadOptions<R> {
	/** `Date.now()` after which no further page is fetched. The first page is always fetched. */
	deadline?: number;
	/** Most pages to fetch; the read then stops as at the deadline. */
	maxPages?: number;
	/** Stops once the newest record that satisfies this is known (`found`). */
	until?: (record: R) => boolean;
	/** Only the newest page is wanted (the baseline). */
	newestPage?: boolean;
}

interface RangeRead<R> {
	/** Each once, newest first. */
	records: R[];
	/** With `until`: the newest record read that satisfies it. */
	found?: R;
	/** Set when the deadline or `maxPages` stopped the read: the unread rest [from, to] of the range. */
	resume?: { from: number; to: number; belowId?: string };
	/** Milliseconds the service could not return all records of (history only). */
	overfullMilliseconds?: number[];
}

export function sourceOf(node: INode, settings: EventSettings): EventSource<IDataObject> {
	const source = isHistoryEvent(settings)
		? historySource(node, settings)
		: isFuturesFills(settings)
			? futuresFillsSource(node, settings)
			: fillsSource(node, settings);
	// Each source reads and compares only records it read itself, so its record type can be widened.
	return source as unknown as EventSource<IDataObject>;
}

/**
 * The account history, paged by time in either order (helpers/history.ts). A full page of one
 * millisecond is skipped over: an error would repeat on every poll and block all later events.
 */
function historySource(node: INode, settings: TriggerSettings): EventSource<HistoryRecord> {
	return {
		query: queryKey(settings.flowType.value, settings.accountType),
		pageSize: LIMITS.historyPageSize,
		expiredCatchUp: 'is older than the service keeps records',
		key: (record) => record,
		// By `created`, then by id (numeric strings, compared without losing digits).
		oldestFirst: (a, b) => Number(a.created) - Number(b.created) || compareIds(a.id, b.id),
		matches: (record) => matchesFilter(record, settings.filter),
		async read(client, range, options) {
			const walk = new HistoryWalk(node, historyQuery(settings, range.startTime, range.endTime), {
				overfull: 'skip',
				deadline: options.deadline,
				maxPages: options.maxPages,
				until: options.until,
				newest: options.newestPage === true ? LIMITS.historyPageSize : undefined,
			});
			await client.requestAllPages(ACCOUNT_ENDPOINTS.history, walk);
			return walk.result;
		},
		noTestEvent: (read) => noTestEventError(node, settings, read),
	};
}

/** Why Fetch Test Event found no record: none at all, or none that passes the filters (with the newest one's values). */
export function noTestEventError(
	node: INode,
	settings: TriggerSettings,
	walk: Pick<WalkResult, 'records' | 'resume'>,
): NodeOperationError {
	const newest: HistoryRecord | undefined = walk.records[0];
	const eventName = settings.flowType.displayName;
	const days = settings.flowType.retentionDays;
	if (newest === undefined) {
		return new NodeOperationError(node, `No ${eventName} record in the last ${days} days`, {
			description: `The service keeps ${eventName} records for ${days} days and has none${settings.accountType === undefined ? '' : ' for this Account Type'}. The trigger will fire on the next one that appears once the workflow is active.`,
		});
	}
	// A stopped walk read the newest records of a newest-first service (all at or above the unread
	// rest), the earliest of an earliest-first one (all at or below it).
	const where =
		walk.resume === undefined
			? `in the last ${days} days`
			: `among the ${Number(newest.created) >= walk.resume.to ? 'newest' : 'earliest'} ${walk.records.length} records`;
	const newestHas = [
		`coin "${String(newest.coin ?? '')}"`,
		newest.symbol === undefined ? 'no symbol' : `symbol "${String(newest.symbol)}"`,
		`change ${String(newest.change ?? '')}`,
	].join(', ');
	return new NodeOperationError(
		node,
		`No ${eventName} record matches ${describeFilter(settings.filter)} ${where}`,
		{
			description: `Coin and Symbol must equal the service's value exactly, including upper and lower case. For comparison, the newest ${eventName} record has ${newestHas}.`,
		},
	);
}

/** 1 for a credit (positive change), -1 for a debit (negative), 0 for zero or no change. */
function changeSign(change: unknown): -1 | 0 | 1 {
	const text = typeof change === 'number' ? String(change) : change;
	if (typeof text !== 'string' || !/[1-9]/.test(text)) return 0;
	return text.trim().startsWith('-') ? -1 : 1;
}

export function matchesFilter(record: HistoryRecord, filter: RecordFilter): boolean {
	if (filter.direction === 'incoming' && changeSign(record.change) !== 1) return false;
	if (filter.direction === 'outgoing' && changeSign(record.change) !== -1) return false;
	if (filter.coin !== undefined && record.coin !== filter.coin) return false;
	if (filter.symbol !== undefined && record.symbol !== filter.symbol) return false;
	return true;
}

export function describeFilter(filter: RecordFilter): string {
	const parts: string[] = [];
	if (filter.direction !== 'both') parts.push(`Direction ${filter.direction}`);
	if (filter.coin !== undefined) parts.push(`Coin "${filter.coin}"`);
	if (filter.symbol !== undefined) parts.push(`Symbol "${filter.symbol}"`);
	return parts.join(', ');
}

/** Order Filled's source: the account's trades, paged by trade ID, so a stopped read goes on `belowId`. */
function fillsSource(node: INode, settings: FillsSettings): EventSource<AccountFill> {
	return {
		query: fillsQueryKey(settings),
		pageSize: LIMITS.accountTradesPageSize,
		expiredCatchUp: 'of fills is older than the 30 days the exchange keeps fills',
		key: (fill) => ({ id: fill.id, created: fill.time }),
		oldestFirst: fillsOldestFirst,
		matches: (fill) => settings.symbol === undefined || fill.symbol === settings.symbol,
		async read(client, range, options) {
			const { startTime, endTime, belowId } = range;
			const walk = new FillsWalk(
				node,
				{ symbol: settings.symbol, accountId: settings.accountId, startTime, endTime },
				{
					deadline: options.deadline,
					// The list is newest first: its first page holds the newest fills.
					maxPages: options.newestPage === true ? 1 : options.maxPages,
					belowId,
					until: options.until,
				},
			);
			await client.requestAllPages(ACCOUNT_ENDPOINTS.trades, walk);
			const stopped = walk.stopped && walk.below !== undefined;
			return {
				records: walk.fills,
				found: walk.found,
				resume: stopped ? { from: startTime, to: endTime, belowId: walk.below } : undefined,
			};
		},
		noTestEvent: (read) => noTestFillError(node, settings, read),
	};
}

/** Why Fetch Test Event found no fill: none in the 30 days, or none of the Symbol. */
function noTestFillError(
	node: INode,
	settings: FillsSettings,
	read: RangeRead<AccountFill>,
): NodeOperationError {
	const days = LIMITS.accountTradesRetentionDays;
	const ofSymbol = settings.symbol === undefined ? '' : ` of Symbol "${settings.symbol}"`;
	const newest = read.records[0];
	if (newest === undefined) {
		return new NodeOperationError(
			node,
			`No fill of your orders${ofSymbol} in the last ${days} days`,
			{
				description: `The exchange keeps fills for ${days} days and lists none${ofSymbol}. The trigger will fire on the next fill once the workflow is active.`,
			},
		);
	}
	return new NodeOperationError(node, `No fill matches Symbol "${String(settings.symbol)}"`, {
		description: `Symbol must equal the exchange's value exactly, including upper and lower case. For comparison, the newest fill the service listed has symbol "${String(newest.symbol ?? '')}".`,
	});
}
