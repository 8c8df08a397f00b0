import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { compareTradeIds } from '../helpers/trades';
import type { ServiceClient } from '../transport';
import { END_MARGIN_MS, type EventSettings, type PollBounds } from './pollParameters';
import { sourceOf, type EventSource, type ReadRange } from './eventSources';
import {
	STATE_VERSION,
	addToGroups,
	copyGroups,
	groupsHave,
	trimSeen,
	type KeyedRecord,
	type ResumePoint,
	type TriggerState,
} from './pollState';

export interface CatchUp {
	state: TriggerState;
	/** Records not emitted before, in the order read (filters not applied yet). */
	fresh: IDataObject[];
}

/** What one poll's catch-up has read so far: every record once, and which of them are new. */
class CatchUpReader {
	readonly read: KeyedRecord[] = [];
	readonly fresh: IDataObject[] = [];
	private readonly handled = new Set<string>();

	constructor(
		private readonly context: IPollFunctions,
		private readonly client: ServiceClient,
		readonly source: EventSource<IDataObject>,
		readonly deadline: number | undefined,
	) {}

	get pastDeadline(): boolean {
		return this.deadline !== undefined && Date.now() >= this.deadline;
	}

	/**
	 * Reads the range, each record once. Stopped by the deadline, returns the unread rest with the
	 * ids already handled in it (`known`: before this poll), so none is emitted twice.
	 */
	async readRange(
		range: ReadRange,
		isNew: (record: KeyedRecord) => boolean,
		known: Array<Record<string, string[]>>,
	): Promise<ResumePoint | undefined> {
		const result = await this.source.read(this.client, range, { deadline: this.deadline });
		for (const record of result.records) {
			const key = this.source.key(record);
			if (this.handled.has(key.id)) continue;
			this.handled.add(key.id);
			this.read.push(key);
			if (isNew(key)) this.fresh.push(record);
		}
		this.warnOverfull(result.overfullMilliseconds ?? []);
		if (result.resume === undefined) return undefined;
		const { from, to, belowId } = result.resume;
		const inRest = (created: string, id: string) =>
			Number(created) >= from &&
			Number(created) <= to &&
			(belowId === undefined || compareTradeIds(id, belowId) < 0);
		const handled: Record<string, string[]> = {};
		for (const groups of known) {
			for (const [created, ids] of Object.entries(groups)) {
				for (const id of ids) if (inRest(created, id)) addToGroups(handled, created, id);
			}
		}
		for (const { created, id } of this.read) {
			if (inRest(created, id)) addToGroups(handled, created, id);
		}
		return { ...result.resume, known: handled };
	}

	/** Logs the milliseconds that held more records than the service can return, when they held new ones. */
	private warnOverfull(milliseconds: number[]): void {
		const { pageSize } = this.source;
		for (const created of milliseconds) {
			if (!this.fresh.some((record) => Number(this.source.key(record).created) === created))
				continue;
			this.context.logger.warn(
				`Trading Service Trigger: more than ${pageSize} records share the millisecond ${created} (${new Date(created).toISOString()}); the service returns at most ${pageSize} of them, so any beyond that cannot be read`,
			);
		}
	}
}

/** Step 1: a catch-up the previous poll had to leave unfinished goes first. */
async function resumeCatchUp(
	context: IPollFunctions,
	reader: CatchUpReader,
	state: TriggerState,
	pending: ResumePoint,
	bounds: PollBounds,
): Promise<{ resumed: boolean; resume?: ResumePoint }> {
	const startTime = Math.max(pending.from, bounds.start);
	if (pending.to < startTime) {
		context.logger.warn(
			`Trading Service Trigger: part of an unfinished catch-up ${reader.source.expiredCatchUp}; it was dropped`,
		);
		return { resumed: false };
	}
	const resume = await reader.readRange(
		{ startTime, endTime: pending.to, belowId: pending.belowId },
		(record) =>
			!groupsHave(pending.known, record.created, record.id) &&
			!groupsHave(state.seen, record.created, record.id),
		[pending.known, state.seen],
	);
	return { resumed: true, resume };
}

/** Step 3: the state after this poll's reads (not stored here). */
export function nextState(
	lateWindowMs: number,
	state: TriggerState,
	read: readonly KeyedRecord[],
	resume: ResumePoint | undefined,
): TriggerState {
	let watermark = state.watermark;
	const seen = copyGroups(state.seen);
	for (const record of read) {
		const created = Number(record.created);
		if (watermark === null || created > watermark) watermark = created;
		if (created >= state.floor) addToGroups(seen, record.created, record.id);
	}
	const minFloor = watermark === null ? state.floor : watermark - lateWindowMs;
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

/**
 * Every poll after the first: an unfinished catch-up first, then the range from the floor to now;
 * the time budget (`deadline`) may stop either, and the state says where the next poll goes on.
 */
export async function catchUp(
	context: IPollFunctions,
	client: ServiceClient,
	settings: EventSettings,
	state: TriggerState,
	bounds: PollBounds,
	deadline: number | undefined,
): Promise<CatchUp> {
	const source = sourceOf(context.getNode(), settings);
	const reader = new CatchUpReader(context, client, source, deadline);
	let resumed = false;
	let resume: ResumePoint | undefined;
	if (state.resume !== undefined) {
		({ resumed, resume } = await resumeCatchUp(context, reader, state, state.resume, bounds));
	}
	if (resume === undefined && !(resumed && reader.pastDeadline)) {
		// Step 2, the regular read: from the floor, not only the watermark, so a record listed late
		// inside the window is read even behind more than a page of newer records. Stopped by the
		// time budget, it resumes down to the floor too: the floor moves up with the newest record
		// read, so a resume that stopped at the old watermark would skip the window below it.
		resume = await reader.readRange(
			{
				startTime: Math.max(state.floor, bounds.start),
				endTime: Math.max(bounds.end, (state.watermark ?? 0) + END_MARGIN_MS),
			},
			(record) => !groupsHave(state.seen, record.created, record.id),
			[state.seen],
		);
	}
	return {
		state: nextState(settings.lateWindowMs, state, reader.read, resume),
		fresh: reader.fresh,
	};
}
