import {
	NodeOperationError,
	type IDataObject,
	type INodeExecutionData,
	type IPollFunctions,
} from 'n8n-workflow';

import { LIMITS, findFlowType, type FlowType } from '../constants';
import {
	HistoryPageError,
	HistoryWalk,
	checkHistoryPage,
	historyPageRequest,
	retentionStart,
	type HistoryQuery,
	type HistoryRecord,
	type WalkOptions,
	type WalkResult,
} from '../helpers/history';
import { accountTypeValue, inputError, integerInRange, oneOf } from '../helpers/validation';
import { ENDPOINTS, ServiceClient, toNodeError } from '../transport';
import {
	EVENTS_WITH_DIRECTION,
	describeFilter,
	exactFilterValue,
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
		throw inputError(
			node,
			'Event',
			`${JSON.stringify(event)} is not an event this trigger knows`,
			'Pick an event from the list.',
		);
	}
	const accountType = accountTypeValue(node, context.getNodeParameter('accountType', 0));
	const direction: Direction = EVENTS_WITH_DIRECTION.includes(flowType.value)
		? oneOf(node, 'Direction', context.getNodeParameter('direction', 'both'), [
				'both',
				'incoming',
				'outgoing',
			] as const)
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

/** Every page of a range the walk's rules ask for (helpers/history.ts), through the transport. */
async function readHistory(
	client: ServiceClient,
	context: IPollFunctions,
	query: HistoryQuery,
	options: WalkOptions,
): Promise<WalkResult> {
	const walk = new HistoryWalk(context.getNode(), query, options);
	await client.requestAllPages(ENDPOINTS.history, walk);
	return walk.result;
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
	client: ServiceClient,
	settings: Settings,
	bounds: Bounds,
	query: string,
): Promise<TriggerState> {
	const range: HistoryQuery = {
		flowType: settings.flowType.value,
		accountType: settings.accountType,
		startTime: bounds.start,
		endTime: bounds.end,
	};
	const page = (await client.request(
		ENDPOINTS.history,
		historyPageRequest(range, LIMITS.historyPageSize),
	)) as HistoryRecord[];
	checkHistoryPage(this.getNode(), page, LIMITS.historyPageSize);
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

/** What one poll's catch-up has read so far: every record once, and which of them are new. */
class CatchUpReader {
	readonly read: HistoryRecord[] = [];
	readonly fresh: HistoryRecord[] = [];
	private readonly handled = new Set<string>();

	constructor(
		private readonly context: IPollFunctions,
		private readonly client: ServiceClient,
		private readonly settings: Settings,
		readonly deadline: number | undefined,
	) {}

	get pastDeadline(): boolean {
		return this.deadline !== undefined && Date.now() >= this.deadline;
	}

	/**
	 * Reads `startTime`..`endTime`, newest first, taking each record once. When the deadline stops
	 * the walk, returns where the next poll goes on: the whole rest of the range, down to
	 * `startTime` (the floor, for the regular read: a record listed late inside the late records
	 * window is not skipped), with the ids already handled in it, so none is emitted twice.
	 * `known`: ids handled before this poll, by `created`.
	 */
	async readRange(
		startTime: number,
		endTime: number,
		isNew: (record: HistoryRecord) => boolean,
		known: Array<Record<string, string[]>>,
	): Promise<ResumePoint | undefined> {
		const walk = await readHistory(
			this.client,
			this.context,
			{
				flowType: this.settings.flowType.value,
				accountType: this.settings.accountType,
				startTime,
				endTime,
			},
			{ overfull: 'skip', deadline: this.deadline },
		);
		for (const record of walk.records) {
			if (this.handled.has(record.id)) continue;
			this.handled.add(record.id);
			this.read.push(record);
			if (isNew(record)) this.fresh.push(record);
		}
		warnOverfull(this.context, walk, this.fresh);
		if (walk.resumeTo === undefined) return undefined;
		const to = walk.resumeTo;
		const inRange = (created: number) => created >= startTime && created <= to;
		const handled: Record<string, string[]> = {};
		for (const groups of known) {
			for (const [created, ids] of Object.entries(groups)) {
				if (inRange(Number(created))) for (const id of ids) addToGroups(handled, created, id);
			}
		}
		for (const record of this.read) {
			if (inRange(Number(record.created))) addToGroups(handled, record.created, record.id);
		}
		return { from: startTime, to, known: handled };
	}
}

/** Step 1: a catch-up the previous poll had to leave unfinished goes first. */
async function resumeCatchUp(
	this: IPollFunctions,
	reader: CatchUpReader,
	state: TriggerState,
	pending: ResumePoint,
	bounds: Bounds,
): Promise<{ resumed: boolean; resume?: ResumePoint }> {
	const startTime = Math.max(pending.from, bounds.start);
	if (pending.to < startTime) {
		this.logger.warn(
			'Trading Service Trigger: part of an unfinished catch-up is older than the service keeps records; it was dropped',
		);
		return { resumed: false };
	}
	const resume = await reader.readRange(
		startTime,
		pending.to,
		(record) =>
			!groupsHave(pending.known, record.created, record.id) &&
			!groupsHave(state.seen, record.created, record.id),
		[pending.known, state.seen],
	);
	return { resumed: true, resume };
}

/**
 * Step 2, the regular read: from the floor (the watermark minus the late records window) to now.
 * Down to the floor, not only to the watermark: a record listed late inside the window is read
 * even when more than a page of newer records arrived since. (An account with more than 500
 * records per window pays one request per further 500.) Stopped by the time budget, it resumes
 * down to the floor too: the floor moves up with the newest record read, so a resume that stopped
 * at the old watermark would skip the late window below it for good.
 */
async function readSinceFloor(
	reader: CatchUpReader,
	state: TriggerState,
	bounds: Bounds,
): Promise<ResumePoint | undefined> {
	const startTime = Math.max(state.floor, bounds.start);
	const endTime = Math.max(bounds.end, (state.watermark ?? 0) + END_MARGIN_MS);
	// The range starts at the floor, and every record read at or above the floor is in `seen`.
	return await reader.readRange(
		startTime,
		endTime,
		(record) => !groupsHave(state.seen, record.created, record.id),
		[state.seen],
	);
}

/** Step 3: the state after this poll's reads; nothing is stored here. */
function nextState(
	settings: Settings,
	state: TriggerState,
	read: HistoryRecord[],
	resume: ResumePoint | undefined,
): TriggerState {
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
	return next;
}

/** Every poll after the first: read what is new since the watermark. */
async function catchUp(
	this: IPollFunctions,
	client: ServiceClient,
	settings: Settings,
	state: TriggerState,
	bounds: Bounds,
	deadline: number | undefined,
): Promise<CatchUp> {
	const reader = new CatchUpReader(this, client, settings, deadline);
	let resumed = false;
	let resume: ResumePoint | undefined;
	if (state.resume !== undefined) {
		({ resumed, resume } = await resumeCatchUp.call(this, reader, state, state.resume, bounds));
	}
	if (resume === undefined && !(resumed && reader.pastDeadline)) {
		resume = await readSinceFloor(reader, state, bounds);
	}
	return { state: nextState(settings, state, reader.read, resume), fresh: reader.fresh };
}

/**
 * "Fetch Test Event": the newest record that passes the filters, read with the same page walk as
 * Return All, at most a few pages deep. Reads state, never writes it.
 */
async function fetchTestEvent(
	this: IPollFunctions,
	client: ServiceClient,
	settings: Settings,
	bounds: Bounds,
): Promise<INodeExecutionData[]> {
	const walk = await readHistory(
		client,
		this,
		{
			flowType: settings.flowType.value,
			accountType: settings.accountType,
			startTime: bounds.start,
			endTime: bounds.end,
		},
		{
			overfull: 'skip',
			maxPages: MANUAL_MAX_PAGES,
			until: (record) => matchesFilter(record, settings.filter),
		},
	);
	if (walk.found !== undefined) return [{ json: walk.found }];

	const newest = walk.records[0];
	const eventName = settings.flowType.displayName;
	const days = settings.flowType.retentionDays;
	if (newest === undefined) {
		throw new NodeOperationError(
			this.getNode(),
			`No ${eventName} record in the last ${days} days`,
			{
				description: `The service keeps ${eventName} records for ${days} days and has none${settings.accountType === undefined ? '' : ' for this Account Type'}. The trigger will fire on the next one that appears once the workflow is active.`,
			},
		);
	}
	const where =
		walk.resumeTo === undefined
			? `in the last ${days} days`
			: `among the newest ${walk.records.length} records`;
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
export async function pollTradingService(
	this: IPollFunctions,
): Promise<INodeExecutionData[][] | null> {
	const startedAt = Date.now();
	const settings = readSettings(this);
	const bounds: Bounds = {
		start: retentionStart(settings.flowType.value, startedAt) + RETENTION_MARGIN_MS,
		end: startedAt + END_MARGIN_MS,
	};

	// The transport of this poll: it reads the credential once.
	const client = new ServiceClient(this);
	if (this.getMode() === 'manual')
		return [await fetchTestEvent.call(this, client, settings, bounds)];

	const staticData = this.getWorkflowStaticData('node');
	const query = queryKey(settings.flowType.value, settings.accountType);
	const state = readState(staticData, query);
	let result: CatchUp;
	try {
		if (state === undefined) {
			writeState(staticData, await takeBaseline.call(this, client, settings, bounds, query));
			return null;
		}
		result = await catchUp.call(
			this,
			client,
			settings,
			state,
			bounds,
			pollDeadline(this, startedAt),
		);
	} catch (error) {
		// A page out of order, or longer than asked for, says nothing reliable about what is new:
		// this poll stops without emitting or moving the watermark, and the next one reads the same
		// range again. Failing the poll instead would report an error on every poll while the
		// service misbehaves.
		if (!(error instanceof HistoryPageError)) throw toNodeError(this.getNode(), error);
		this.logger.warn(
			`Trading Service Trigger: ${error.message}; this poll emitted nothing and the next poll reads the same range again`,
		);
		return null;
	}
	// An idle poll leaves the static data untouched, so n8n has nothing to save.
	if (JSON.stringify(result.state) !== JSON.stringify(state)) writeState(staticData, result.state);

	const items = result.fresh
		.filter((record) => matchesFilter(record, settings.filter))
		.sort(oldestFirst)
		.map((record): INodeExecutionData => ({ json: record }));
	return items.length > 0 ? [items] : null;
}
