import type { INode, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { accountScope } from '../helpers/accountScope';
import { HistoryPageError } from '../helpers/historyPage';
import { TradesPageError } from '../helpers/trades';
import { ServiceClient, toNodeError } from '../transport';
import { sourceOf } from './eventSources';
import { catchUp, type CatchUp } from './pollCatchUp';
import { checkFuturesAccount } from './futuresFills';
import {
	isFuturesFills,
	isHistoryEvent,
	pollBounds,
	readEventSettings,
	type EventSettings,
	type PollBounds,
} from './pollParameters';
import {
	STATE_VERSION,
	addToGroups,
	readState,
	trimSeen,
	writeState,
	type KeyedRecord,
	type TriggerState,
} from './pollState';

/** Share of n8n's poll time budget spent fetching pages; the rest is left for the last request and the hand-off. */
const BUDGET_SHARE = 0.5;

/** Pages Fetch Test Event reads at most while looking for a record that matches the filters. */
export const MANUAL_MAX_PAGES = 10;

/**
 * One poll of a records event: Fetch Test Event, the first activation's baseline, or the catch-up.
 * The state is written only after every request of the poll has succeeded.
 */
export async function pollTradingService(
	this: IPollFunctions,
): Promise<INodeExecutionData[][] | null> {
	const startedAt = Date.now();
	const node = this.getNode();
	const settings = readEventSettings(this);
	const bounds = pollBounds(settings, startedAt);
	const client = new ServiceClient(this);
	if (isFuturesFills(settings)) {
		try {
			await checkFuturesAccount(client, node);
		} catch (error) {
			throw toNodeError(node, error);
		}
	} else if (!isHistoryEvent(settings)) {
		// A master key's trade list can name a sub account: only the key's own fills start it.
		try {
			settings.accountId = (await accountScope(client, node, undefined)).accountId;
		} catch (error) {
			throw toNodeError(node, error);
		}
	}
	if (this.getMode() === 'manual') return [await fetchTestEvent(node, client, settings, bounds)];

	const source = sourceOf(node, settings);
	const staticData = this.getWorkflowStaticData('node');
	const state = readState(staticData, source.query);
	let result: CatchUp;
	try {
		if (state === undefined) {
			writeState(staticData, await takeBaseline(node, client, settings, bounds, source.query));
			return null;
		}
		result = await catchUp(this, client, settings, state, bounds, pollDeadline(this, startedAt));
	} catch (error) {
		// A page out of order, or longer than asked for, says nothing reliable about what is new:
		// the next poll reads the same range again. Failing the poll instead would report an error
		// on every poll while the service misbehaves.
		if (!(error instanceof HistoryPageError || error instanceof TradesPageError)) {
			throw toNodeError(node, error);
		}
		this.logger.warn(
			`Trading Service Trigger: ${error.message}; this poll emitted nothing and the next poll reads the same range again`,
		);
		return null;
	}
	// An idle poll leaves the static data untouched, so n8n has nothing to save.
	if (JSON.stringify(result.state) !== JSON.stringify(state)) writeState(staticData, result.state);

	const items = result.fresh
		.filter((record) => source.matches(record))
		.sort((a, b) => source.oldestFirst(a, b))
		.map((record): INodeExecutionData => ({ json: record }));
	return items.length > 0 ? [items] : null;
}

/** When this poll stops fetching further pages, or undefined when n8n gives no time budget. */
function pollDeadline(context: IPollFunctions, startedAt: number): number | undefined {
	// Older n8n hosts give no budget: they read the whole backlog at once.
	const getBudget = (context as Partial<IPollFunctions>).getPollBudgetMs;
	if (typeof getBudget !== 'function') return undefined;
	const budget: unknown = getBudget.call(context);
	if (typeof budget !== 'number' || !Number.isFinite(budget) || budget <= 0) return undefined;
	return startedAt + budget * BUDGET_SHARE;
}

/** Fetch Test Event: the newest record that passes the filters, at most a few pages deep. */
export async function fetchTestEvent(
	node: INode,
	client: ServiceClient,
	settings: EventSettings,
	bounds: PollBounds,
): Promise<INodeExecutionData[]> {
	const source = sourceOf(node, settings);
	const read = await source.read(
		client,
		{ startTime: bounds.start, endTime: bounds.end },
		{ maxPages: MANUAL_MAX_PAGES, until: (record) => source.matches(record) },
	);
	if (read.found !== undefined) return [{ json: read.found }];
	throw source.noTestEvent(read);
}

/**
 * First activation: the newest page of the retention window. On an earliest-first history service
 * the walk reads up to the end of the window, so the watermark is the newest record, not an old
 * one that would make the next poll emit everything after it.
 */
export async function takeBaseline(
	node: INode,
	client: ServiceClient,
	settings: EventSettings,
	bounds: PollBounds,
	query: string,
): Promise<TriggerState> {
	const source = sourceOf(node, settings);
	const range = { startTime: bounds.start, endTime: bounds.end };
	const { records } = await source.read(client, range, { newestPage: true });
	const page = records.map((record) => source.key(record));
	return baselineState(page, settings.lateWindowMs, bounds.start, query, source.pageSize);
}

/** The state that remembers the newest page of what exists (any order); `start`: the range's start. */
export function baselineState(
	page: readonly KeyedRecord[],
	lateWindowMs: number,
	start: number,
	query: string,
	pageSize: number = LIMITS.historyPageSize,
): TriggerState {
	if (page.length === 0) {
		return { version: STATE_VERSION, query, watermark: null, floor: start, seen: {} };
	}
	const created = page.map((record) => Number(record.created));
	const watermark = Math.max(...created);
	let floor = watermark - lateWindowMs;
	// A full page may have cut the oldest millisecond short: only what was read counts as known.
	// Each list's page on its own (a full page of one contract's fills is cut at its own time).
	const lists = new Map<string | undefined, number[]>();
	for (const record of page)
		lists.set(record.list, [...(lists.get(record.list) ?? []), Number(record.created)]);
	for (const times of lists.values())
		if (times.length >= pageSize) floor = Math.max(floor, Math.min(...times) + 1);
	const seen: Record<string, string[]> = {};
	for (const record of page) {
		if (Number(record.created) >= floor) addToGroups(seen, record.created, record.id);
	}
	const trimmed = trimSeen(seen, floor, floor, watermark);
	return { version: STATE_VERSION, query, watermark, floor: trimmed.floor, seen: trimmed.seen };
}
