import { NodeApiError, type IDataObject, type INode, type JsonObject } from 'n8n-workflow';

import { DAY_MS } from '../constants';
import { findFlowType } from './flowTypes';
import { inputError } from './validation';

// The account history's request rules (docs/api.md §4.1); paging a whole range is history.ts.

/** One account transaction record (spec §2.1), exactly as the service returned it. */
export interface HistoryRecord extends IDataObject {
	id: string;
	created: string;
}

export interface HistoryQuery {
	flowType: number;
	accountType?: number;
	startTime: number;
	endTime: number;
}

/**
 * A start a little older than the retention window is still accepted: "30 days ago" computed a
 * moment before the check would otherwise fail. The service simply has nothing that old.
 */
const RETENTION_GRACE_MS = 5 * 60 * 1000;

export function retentionStart(flowType: number, now: number): number {
	const retentionDays = findFlowType(flowType)?.retentionDays ?? 30;
	return now - retentionDays * DAY_MS;
}

/** Start not after End, and inside the flow type's retention window (or moved up: `clamp`). */
export function checkHistoryRange(
	node: INode,
	query: HistoryQuery,
	now: number,
	clamp: boolean,
	itemIndex?: number,
): HistoryQuery {
	const flowType = findFlowType(query.flowType);
	if (flowType === undefined) {
		throw inputError(
			node,
			'Flow Type',
			`${query.flowType} is not a flow type the service knows`,
			'Pick a flow type from the list.',
			itemIndex,
		);
	}
	const oldest = retentionStart(query.flowType, now);
	let startTime = query.startTime;
	if (startTime < oldest - RETENTION_GRACE_MS) {
		if (!clamp) {
			throw inputError(
				node,
				'Start',
				`${new Date(startTime).toISOString()} is older than the service keeps ${flowType.displayName} records (${flowType.retentionDays} days, so not before ${new Date(oldest).toISOString()})`,
				`Move Start to within the last ${flowType.retentionDays} days, or turn on Options > Clamp Start to Retention Window.`,
				itemIndex,
			);
		}
		startTime = oldest;
	}
	if (startTime > query.endTime) {
		throw inputError(
			node,
			'Start',
			`Start (${new Date(startTime).toISOString()}) is after End (${new Date(query.endTime).toISOString()})`,
			'Set Start to End or earlier: both bounds are inclusive.',
			itemIndex,
		);
	}
	return { ...query, startTime };
}

export function historyPageRequest(
	query: HistoryQuery,
	limit: number,
	itemIndex?: number,
): { qs: IDataObject; itemIndex?: number } {
	const qs: IDataObject = {
		startTime: String(query.startTime),
		endTime: String(query.endTime),
		limit: String(limit),
		flowType: query.flowType,
	};
	if (query.accountType !== undefined) qs.accountType = query.accountType;
	return { qs, itemIndex };
}

/** A page paging by time cannot use: the action node fails, the trigger warns and stops. */
export class HistoryPageError extends NodeApiError {
	problem!: 'oversize' | 'unordered';
}

/** 'flat': no record, one, or all created in one millisecond. */
export type HistoryPageOrder = 'newestFirst' | 'oldestFirst' | 'flat';

/**
 * A page's order, read from the page (docs/api.md §4.1 "Order"): the first and last record tell
 * the direction, equal times allowed anywhere. HistoryPageError for a page longer than `limit` or
 * in no order.
 */
export function checkHistoryPage(
	node: INode,
	page: HistoryRecord[],
	limit: number,
	itemIndex?: number,
): HistoryPageOrder {
	if (page.length > limit) {
		const error = new HistoryPageError(node, { records: page.length, limit } as JsonObject, {
			message: `The service returned ${page.length} history records for a request of at most ${limit}: more records than asked for`,
			description:
				'Such a page cannot be paged by time, so none of it was used. Check that Base URL in the credential points at the Trading Service API, then run again.',
			itemIndex,
		});
		error.problem = 'oversize';
		throw error;
	}
	if (page.length < 2) return 'flat';
	const first = Number(page[0].created);
	const last = Number(page[page.length - 1].created);
	const order: HistoryPageOrder =
		first > last ? 'newestFirst' : first < last ? 'oldestFirst' : 'flat';
	for (let index = 1; index < page.length; index++) {
		const before = Number(page[index - 1].created);
		const created = Number(page[index].created);
		const broken =
			order === 'newestFirst'
				? created > before
				: order === 'oldestFirst'
					? created < before
					: created !== before;
		if (!broken) continue;
		const error = new HistoryPageError(node, { position: index } as JsonObject, {
			message:
				'The service returned a history page in no order: neither newest first nor oldest first',
			description: `The page runs from created ${page[0].created} to ${page[page.length - 1].created}, but record ${index} (created ${page[index].created}) comes after record ${index - 1} (created ${page[index - 1].created}). Paging by time relies on the page being in one order, so none of it was used: records could otherwise be missed. Run again; if it keeps happening, the service is not the Trading Service API this node expects.`,
			itemIndex,
		});
		error.problem = 'unordered';
		throw error;
	}
	return order;
}

/** Numeric string ids compared as numbers, without losing digits. */
export function compareIds(a: string, b: string): number {
	if (a.length !== b.length) return a.length - b.length;
	return a < b ? -1 : a > b ? 1 : 0;
}

/** By `created`, then by id: the service's order within one millisecond is not promised. */
export function sortNewestFirst(records: HistoryRecord[]): HistoryRecord[] {
	return records.sort((a, b) => Number(b.created) - Number(a.created) || compareIds(b.id, a.id));
}
