import type { IDataObject } from 'n8n-workflow';

/**
 * What the trigger keeps in the workflow's static data between polls. Every time in it is a
 * record's server `created` time; the local clock never goes in.
 *
 * - `watermark`: the newest `created` of any record read so far (null while the account has had
 *   no record of this kind since activation).
 * - `floor`: records older than this are never emitted. It trails the watermark by the late
 *   records window and only ever moves forward.
 * - `seen`: the ids of every record read whose `created` is at or above `floor`, grouped by
 *   `created`. It holds the ids already emitted at the watermark millisecond, and those of the late
 *   records window. Bounded by MAX_REMEMBERED_IDS: the oldest milliseconds are dropped first and
 *   `floor` moves past them, so a forgotten id can never be emitted again.
 * - `resume`: present only when a catch-up did not finish within n8n's poll time budget: the
 *   records with `created` in [from, to] have not been read yet, except the ids in `known`. For
 *   Order Filled (trigger/sources/fills.ts), `belowId` narrows it: only the fills with a trade ID
 *   below it.
 *
 * Order Filled keeps the same state, a fill's `time` in the place of `created`.
 */
export interface ResumePoint {
	from: number;
	to: number;
	/** Ids already handled in the range (history: at the `from` and `to` milliseconds), by `created`. */
	known: Record<string, string[]>;
	/** Order Filled only: the unread fills are those with a trade ID below this (exclusive). */
	belowId?: string;
}

/** What the state needs of a record or fill: its id and its time (`created`; a fill's `time`). */
export interface KeyedRecord {
	id: string;
	created: string;
}

export interface TriggerState {
	version: number;
	/** The service query the state belongs to: flow type and account type. */
	query: string;
	watermark: number | null;
	floor: number;
	seen: Record<string, string[]>;
	resume?: ResumePoint;
}

export const STATE_VERSION = 1;

/** Most record ids kept in static data (about 25 kB of JSON). */
export const MAX_REMEMBERED_IDS = 1000;

export function queryKey(flowType: number, accountType: number | undefined): string {
	return `flowType=${flowType};accountType=${accountType ?? 'any'}`;
}

const isMs = (value: unknown): value is number =>
	typeof value === 'number' && Number.isSafeInteger(value);

function isIdGroups(value: unknown): value is Record<string, string[]> {
	if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
	return Object.entries(value).every(
		([created, ids]) =>
			/^\d+$/.test(created) && Array.isArray(ids) && ids.every((id) => typeof id === 'string'),
	);
}

/** The stored state for this query, or undefined when there is none (or it is for another query). */
export function readState(staticData: IDataObject, query: string): TriggerState | undefined {
	const { version, watermark, floor, seen, resume } = staticData;
	if (version !== STATE_VERSION || staticData.query !== query) return undefined;
	if (!(watermark === null || isMs(watermark)) || !isMs(floor) || !isIdGroups(seen))
		return undefined;
	const state: TriggerState = { version, query, watermark, floor, seen: copyGroups(seen) };
	if (resume !== undefined && resume !== null) {
		const point = resume as Partial<ResumePoint>;
		if (!isMs(point.from) || !isMs(point.to) || !isIdGroups(point.known)) return undefined;
		state.resume = { from: point.from, to: point.to, known: copyGroups(point.known) };
		if (point.belowId !== undefined) {
			if (typeof point.belowId !== 'string' || !/^\d{1,20}$/.test(point.belowId)) return undefined;
			state.resume.belowId = point.belowId;
		}
	}
	return state;
}

/** Replaces the static data with the state. Called only once every request of the poll has succeeded. */
export function writeState(staticData: IDataObject, state: TriggerState): void {
	for (const key of Object.keys(staticData)) delete staticData[key];
	const stored: IDataObject = {
		version: state.version,
		query: state.query,
		watermark: state.watermark,
		floor: state.floor,
		seen: copyGroups(state.seen),
	};
	if (state.resume) stored.resume = { ...state.resume, known: copyGroups(state.resume.known) };
	Object.assign(staticData, stored);
}

export function copyGroups(groups: Record<string, string[]>): Record<string, string[]> {
	const copy: Record<string, string[]> = {};
	for (const [created, ids] of Object.entries(groups)) copy[created] = [...ids];
	return copy;
}

export function addToGroups(groups: Record<string, string[]>, created: string, id: string): void {
	const ids = groups[created] ?? (groups[created] = []);
	if (!ids.includes(id)) ids.push(id);
}

export function groupsHave(groups: Record<string, string[]>, created: string, id: string): boolean {
	return groups[created]?.includes(id) ?? false;
}

/**
 * Moves the floor to `minFloor` if that is later, forgets ids below it, then forgets whole
 * milliseconds, oldest first, while more than `maxIds` ids are kept (never the watermark's),
 * moving the floor past each. The floor never moves back.
 */
export function trimSeen(
	seen: Record<string, string[]>,
	floor: number,
	minFloor: number,
	watermark: number | null,
	maxIds = MAX_REMEMBERED_IDS,
): { seen: Record<string, string[]>; floor: number } {
	let newFloor = Math.max(floor, minFloor);
	const kept = Object.keys(seen)
		.map(Number)
		.filter((created) => created >= newFloor)
		.sort((a, b) => a - b);
	let count = kept.reduce((sum, created) => sum + seen[String(created)].length, 0);
	while (count > maxIds && kept.length > 0 && kept[0] !== watermark) {
		const oldest = kept.shift() as number;
		count -= seen[String(oldest)].length;
		newFloor = oldest + 1;
	}
	const trimmed: Record<string, string[]> = {};
	for (const created of kept) trimmed[String(created)] = [...seen[String(created)]];
	return { seen: trimmed, floor: newFloor };
}
