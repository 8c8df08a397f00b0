import {
	NodeOperationError,
	type IDataObject,
	type INodeExecutionData,
	type IPollFunctions,
} from 'n8n-workflow';

import { LIMITS, findFlowType, type FlowType } from '../constants';
import {
	fetchHistoryPage,
	retentionStart,
	walkHistory,
	type HistoryQuery,
	type HistoryRecord,
	type WalkResult,
} from '../helpers/history';
import { accountTypeValue, inputError, integerInRange, oneOf } from '../helpers/validation';
import {
	EVENTS_WITH_DIRECTION,
	describeFilter,
	exactFilterValue,
	hasClientSideFilter,
	matchesFilter,
	type Direction,
	type RecordFilter,
} from './filters';
import {
	STATE_VERSION,
	addToGroups,
	copyGroups,
	groupsHave,
	queryKey,
	readState,
	trimSeen,
	writeState,
	type ResumePoint,
	type TriggerState,
} from './state';

export const DEFAULT_LATE_WINDOW_MINUTES = 10;
export const MAX_LATE_WINDOW_MINUTES = 60;
/**
 * The query's end bound is this machine's clock plus this margin. It is only a bound, never
 * stored: a record newer than it is read by the next poll, whose range starts from the watermark.
 * Signed requests are accepted only while the two clocks agree within the receive window (at most
 * 60 s), so local time + 60 s is never behind the service's clock.
 */
export const END_MARGIN_MS = LIMITS.maxRecvWindowMs;
/** The query's start stays this far inside the retention window, for the same clock reason. */
export const RETENTION_MARGIN_MS = LIMITS.maxRecvWindowMs;
/** Share of n8n's poll time budget spent fetching pages; the rest is left for the last request and the hand-off. */
export const BUDGET_SHARE = 0.5;
/** Pages "Fetch Test Event" reads at most while looking for a record that matches the filters. */
export const MANUAL_MAX_PAGES = 10;

interface Settings {
	flowType: FlowType;
	accountType?: number;
	filter: RecordFilter;
	lateWindowMs: number;
}

interface Bounds {
	/** Oldest time the service still keeps, with a margin. */
	start: number;
	/** Newest time to ask for. */
	end: number;
}

function readSettings(context: IPollFunctions): Settings {
	const node = context.getNode();
	const event = context.getNodeParameter('event') as unknown;
	const flowType = findFlowType(Number(event));
	if (flowType === undefined) {
		throw inputError(node, 'Event', `${JSON.stringify(event)} is not an event this trigger knows`, 'Pick an event from the list.');
	}
	const accountType = accountTypeValue(node, context.getNodeParameter('accountType', 0));
	const direction: Direction = EVENTS_WITH_DIRECTION.includes(flowType.value)
		? oneOf(node, 'Direction', context.getNodeParameter('direction', 'both'), ['both', 'incoming', 'outgoing'] as const)
		: 'both';
	const filters = context.getNodeParameter('filters', {}) as IDataObject;
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const lateWindowMinutes = integerInRange(
		node,
		'Late Records Window (Minutes)',
		options.lateWindowMinutes ?? DEFAULT_LATE_WINDOW_MINUTES,
		0,
		MAX_LATE_WINDOW_MINUTES,
	);
	return {
		flowType,
		accountType: accountType === 0 ? undefined : accountType,
		filter: {
			direction,
			coin: exactFilterValue(node, 'Coin', filters.coin),
			symbol: exactFilterValue(node, 'Symbol', filters.symbol),
		},
		lateWindowMs: lateWindowMinutes * 60 * 1000,
	};
}

function compareIds(a: string, b: string): number {
	if (a.length !== b.length) return a.length - b.length;
	return a < b ? -1 : a > b ? 1 : 0;
}

/** Oldest first: by `created`, then by id (numeric strings, compared without losing digits). */
export function oldestFirst(a: HistoryRecord, b: HistoryRecord): number {
	return Number(a.created) - Number(b.created) || compareIds(a.id, b.id);
}

function pollDeadline(context: IPollFunctions, startedAt: number): number | undefined {
	// Recent n8n gives each poll a time budget; older hosts have none and read the whole backlog at once.
	const getBudget = (context as Partial<IPollFunctions>).getPollBudgetMs;
	if (typeof getBudget !== 'function') return undefined;
	const budget: unknown = getBudget.call(context);
	if (typeof budget !== 'number' || !Number.isFinite(budget) || budget <= 0) return undefined;
	return startedAt + budget * BUDGET_SHARE;
}

function idsAt(records: HistoryRecord[], created: number): string[] {
	return records.filter((record) => Number(record.created) === created).map((record) => record.id);
}

function knownAt(entries: Array<[number, string[]]>): Record<string, string[]> {
	const known: Record<string, string[]> = {};
	for (const [created, ids] of entries) {
		for (const id of ids) addToGroups(known, String(created), id);
	}
	return known;
}

/** Logs the milliseconds that held more records than the service can return, when they held new ones. */
function warnOverfull(context: IPollFunctions, walk: WalkResult, fresh: HistoryRecord[]): void {
	for (const created of walk.overfullMilliseconds) {
		if (!fresh.some((record) => Number(record.created) === created)) continue;
		context.logger.warn(
			`Trading Service Trigger: more than ${LIMITS.historyPageSize} records share the millisecond ${created} (${new Date(created).toISOString()}); the service returns at most ${LIMITS.historyPageSize} of them, so any beyond that cannot be read`,
		);
	}
}

/** First activation: remember what exists, emit nothing. One request. */
async function takeBaseline(
	this: IPollFunctions,
	settings: Settings,
	bounds: Bounds,
	query: string,
): Promise<TriggerState> {
	const page = await fetchHistoryPage.call(
		this,
		{ flowType: settings.flowType.value, accountType: settings.accountType, startTime: bounds.start, endTime: bounds.end },
		LIMITS.historyPageSize,
	);
	if (page.length === 0) {
		// Nothing exists yet: every record that appears from now on is new.
		return { version: STATE_VERSION, query, watermark: null, floor: bounds.start, seen: {} };
	}
	const created = page.map((record) => Number(record.created));
	const watermark = Math.max(...created);
	let floor = watermark - settings.lateWindowMs;
	// A full page may have cut the oldest millisecond short: only what was read counts as known.
	if (page.length === LIMITS.historyPageSize) floor = Math.max(floor, Math.min(...created) + 1);
	const seen: Record<string, string[]> = {};
	for (const record of page) {
		if (Number(record.created) >= floor) addToGroups(seen, record.created, record.id);
	}
	const trimmed = trimSeen(seen, floor, floor, watermark);
	return { version: STATE_VERSION, query, watermark, floor: trimmed.floor, seen: trimmed.seen };
}

interface CatchUp {
	state: TriggerState;
	/** Records not emitted before, in the order read (filters not applied yet). */
	fresh: HistoryRecord[];
}

/** Every poll after the first: read what is new since the watermark. Nothing is stored here. */
async function catchUp(
	this: IPollFunctions,
	settings: Settings,
	state: TriggerState,
	bounds: Bounds,
	deadline: number | undefined,
): Promise<CatchUp> {
	const base = { flowType: settings.flowType.value, accountType: settings.accountType };
	const read: HistoryRecord[] = [];
	const fresh: HistoryRecord[] = [];
	const handled = new Set<string>();
	const take = (record: HistoryRecord, isNew: boolean) => {
		if (handled.has(record.id)) return;
		handled.add(record.id);
		read.push(record);
		if (isNew) fresh.push(record);
	};

	// 1. A catch-up the previous poll had to leave unfinished goes first.
	let resume: ResumePoint | undefined = state.resume;
	let resumed = false;
	if (resume !== undefined) {
		const pending: ResumePoint = resume;
		const startTime = Math.max(pending.from, bounds.start);
		resume = undefined;
		if (pending.to >= startTime) {
			resumed = true;
			const walk = await walkHistory.call(this, { ...base, startTime, endTime: pending.to }, { overfull: 'skip', deadline });
			for (const record of walk.records) {
				take(
					record,
					!groupsHave(pending.known, record.created, record.id) && !groupsHave(state.seen, record.created, record.id),
				);
			}
			warnOverfull(this, walk, fresh);
			if (walk.resumeTo !== undefined && walk.resumeTo >= pending.from) {
				const to = walk.resumeTo;
				resume = {
					from: pending.from,
					to,
					known: knownAt([
						[pending.from, pending.known[String(pending.from)] ?? []],
						[to, idsAt(walk.records, to)],
						[to, to === pending.to ? (pending.known[String(to)] ?? []) : []],
					]),
				};
			}
		} else {
			this.logger.warn(
				'Trading Service Trigger: part of an unfinished catch-up is older than the service keeps records; it was dropped',
			);
		}
	}

	// 2. The regular read: from the floor (the watermark minus the late records window) to now.
	if (resume === undefined && !(resumed && deadline !== undefined && Date.now() >= deadline)) {
		const startTime = Math.max(state.floor, bounds.start);
		const endTime = Math.max(bounds.end, (state.watermark ?? 0) + END_MARGIN_MS);
		const query: HistoryQuery = { ...base, startTime, endTime };
		// Down to the floor, not only to the watermark: a record listed late inside the window is
		// read even when more than a page of newer records arrived since. (An account with more than
		// 500 records per window pays one request per further 500.)
		const walk = await walkHistory.call(this, query, { overfull: 'skip', deadline });
		// The range starts at the floor, and every record read at or above the floor is in `seen`.
		for (const record of walk.records) take(record, !groupsHave(state.seen, record.created, record.id));
		warnOverfull(this, walk, fresh);
		const from = state.watermark === null ? startTime : Math.max(state.watermark, startTime);
		if (walk.resumeTo !== undefined && walk.resumeTo >= from) {
			const to = walk.resumeTo;
			resume = {
				from,
				to,
				known: knownAt([
					[from, state.seen[String(from)] ?? []],
					[from, idsAt(read, from)],
					[to, idsAt(walk.records, to)],
				]),
			};
		}
	}

	let watermark = state.watermark;
	const seen = copyGroups(state.seen);
	for (const record of read) {
		const created = Number(record.created);
		if (watermark === null || created > watermark) watermark = created;
		if (created >= state.floor) addToGroups(seen, record.created, record.id);
	}
	const minFloor = watermark === null ? state.floor : watermark - settings.lateWindowMs;
	const trimmed = trimSeen(seen, state.floor, minFloor, watermark);
	const next: TriggerState = {
		version: STATE_VERSION,
		query: state.query,
		watermark,
		floor: trimmed.floor,
		seen: trimmed.seen,
	};
	if (resume !== undefined) next.resume = resume;
	return { state: next, fresh };
}

/** "Fetch Test Event": the newest record that passes the filters. Reads state, never writes it. */
async function fetchTestEvent(
	this: IPollFunctions,
	settings: Settings,
	bounds: Bounds,
): Promise<INodeExecutionData[]> {
	const filtered = hasClientSideFilter(settings.filter);
	const limit = filtered ? LIMITS.historyPageSize : 1;
	const seenIds = new Set<string>();
	let newest: HistoryRecord | undefined;
	let endTime = bounds.end;
	let exhausted = false;
	for (let page = 0; page < MANUAL_MAX_PAGES && !exhausted; page++) {
		const records = await fetchHistoryPage.call(
			this,
			{ flowType: settings.flowType.value, accountType: settings.accountType, startTime: bounds.start, endTime },
			limit,
		);
		for (const record of records) {
			if (seenIds.has(record.id)) continue;
			seenIds.add(record.id);
			newest ??= record;
			if (matchesFilter(record, settings.filter)) return [{ json: record }];
		}
		if (records.length < limit) {
			exhausted = true;
			break;
		}
		const oldest = Math.min(...records.map((record) => Number(record.created)));
		endTime = oldest >= endTime ? endTime - 1 : oldest;
		if (endTime < bounds.start) exhausted = true;
	}

	const eventName = settings.flowType.displayName;
	const days = settings.flowType.retentionDays;
	if (newest === undefined) {
		throw new NodeOperationError(this.getNode(), `No ${eventName} record in the last ${days} days`, {
			description: `The service keeps ${eventName} records for ${days} days and has none${settings.accountType === undefined ? '' : ' for this Account Type'}. The trigger will fire on the next one that appears once the workflow is active.`,
		});
	}
	const where = exhausted ? `in the last ${days} days` : `among the newest ${seenIds.size} records`;
	const newestHas = [
		`coin "${String(newest.coin ?? '')}"`,
		newest.symbol === undefined ? 'no symbol' : `symbol "${String(newest.symbol)}"`,
		`change ${String(newest.change ?? '')}`,
	].join(', ');
	throw new NodeOperationError(
		this.getNode(),
		`No ${eventName} record matches ${describeFilter(settings.filter)} ${where}`,
		{
			description: `Coin and Symbol must equal the service's value exactly, including upper and lower case. For comparison, the newest ${eventName} record has ${newestHas}.`,
		},
	);
}

/**
 * The trigger's poll. Manual runs ("Fetch Test Event") return the newest matching record and leave
 * the state alone; the first active poll remembers what exists and returns null; every later poll
 * returns the new records, oldest first, or null when there are none. The state is written only
 * after every request of the poll has succeeded: a failed poll throws and changes nothing.
 */
export async function pollTradingService(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const startedAt = Date.now();
	const settings = readSettings(this);
	const bounds: Bounds = {
		start: retentionStart(settings.flowType.value, startedAt) + RETENTION_MARGIN_MS,
		end: startedAt + END_MARGIN_MS,
	};

	if (this.getMode() === 'manual') return [await fetchTestEvent.call(this, settings, bounds)];

	const staticData = this.getWorkflowStaticData('node');
	const query = queryKey(settings.flowType.value, settings.accountType);
	const state = readState(staticData, query);
	if (state === undefined) {
		writeState(staticData, await takeBaseline.call(this, settings, bounds, query));
		return null;
	}

	const result = await catchUp.call(this, settings, state, bounds, pollDeadline(this, startedAt));
	// An idle poll leaves the static data untouched, so n8n has nothing to save.
	if (JSON.stringify(result.state) !== JSON.stringify(state)) writeState(staticData, result.state);

	const items = result.fresh
		.filter((record) => matchesFilter(record, settings.filter))
		.sort(oldestFirst)
		.map((record): INodeExecutionData => ({ json: record }));
	return items.length > 0 ? [items] : null;
}
