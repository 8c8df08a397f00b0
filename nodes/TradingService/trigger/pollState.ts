import type { IDataObject } from 'n8n-workflow';

/** What the state needs of a record or fill: its id and its time. */
export interface KeyedRecord {
	id: string;
	created: string;
	/** The list it was read from, when a baseline reads several (futures fills: the contract). */
	list?: string;
}

/** The records in [from, to] not read yet, except `known`; fills: only those below `belowId`. */
export interface ResumePoint {
	from: number;
	to: number;
	known: Record<string, string[]>;
	belowId?: string;
}

/** What the trigger keeps in static data between polls (docs/trigger.md): server times only. */
export interface TriggerState {
	version: number;
	/** The service query the state belongs to (EventSource.query). */
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

/** Replaces the static data with the state. */
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
 * Moves the floor up to `minFloor`, forgets ids below it, then whole milliseconds, oldest first,
 * while more than `maxIds` ids are kept (never the watermark's), moving the floor past each.
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
