import type { IDataObject } from 'n8n-workflow';

import {
	MAX_REMEMBERED_IDS,
	STATE_VERSION,
	addToGroups,
	groupsHave,
	queryKey,
	readState,
	trimSeen,
	writeState,
	type TriggerState,
} from '../../../../nodes/TradingService/trigger/pollState';

const query = queryKey(32, 2);
const state = (fields: Partial<TriggerState> = {}): TriggerState => ({
	version: STATE_VERSION,
	query,
	watermark: 1_700_000_000_500,
	floor: 1_700_000_000_000,
	seen: { '1700000000500': ['9223372036854775807'] },
	...fields,
});

describe('queryKey', () => {
	it('names the flow type and the account type, "any" when none is set', () => {
		expect(queryKey(32, 2)).toBe('flowType=32;accountType=2');
		expect(queryKey(906, undefined)).toBe('flowType=906;accountType=any');
	});
});

describe('writeState and readState', () => {
	it('round-trip a state with a resume point, ids kept as strings, nothing shared with the input', () => {
		const written = state({
			resume: { from: 1_700_000_000_100, to: 1_700_000_000_400, known: { '1700000000100': ['7'] } },
		});
		const staticData: IDataObject = { leftOver: true };
		writeState(staticData, written);
		expect(staticData.leftOver).toBeUndefined();
		const read = readState(staticData, query);
		expect(read).toEqual(written);
		written.seen['1700000000500'].push('8');
		written.resume!.known['1700000000100'].push('9');
		expect(readState(staticData, query)).toEqual(read);
	});

	it('keeps a null watermark (no record of this kind since activation)', () => {
		const staticData: IDataObject = {};
		writeState(staticData, state({ watermark: null, seen: {} }));
		expect(readState(staticData, query)?.watermark).toBeNull();
	});

	it('reads nothing for another query, another version, or a state that is not well formed', () => {
		const staticData: IDataObject = {};
		writeState(staticData, state());
		expect(readState(staticData, queryKey(32, undefined))).toBeUndefined();
		const broken: IDataObject[] = [
			{ ...staticData, version: STATE_VERSION + 1 },
			{ ...staticData, watermark: '1700000000500' },
			{ ...staticData, floor: 1.5 },
			{ ...staticData, seen: { later: ['1'] } },
			{ ...staticData, seen: { '1700000000500': [1] } },
			{ ...staticData, seen: [] },
			{ ...staticData, resume: { from: 1, to: 'x', known: {} } },
		];
		for (const data of broken) expect(readState(data, query)).toBeUndefined();
	});
});

describe('addToGroups and groupsHave', () => {
	it('group ids by created time, each id once', () => {
		const groups: Record<string, string[]> = {};
		addToGroups(groups, '5', 'a');
		addToGroups(groups, '5', 'a');
		addToGroups(groups, '5', 'b');
		addToGroups(groups, '6', 'a');
		expect(groups).toEqual({ '5': ['a', 'b'], '6': ['a'] });
		expect(groupsHave(groups, '5', 'b')).toBe(true);
		expect(groupsHave(groups, '6', 'b')).toBe(false);
		expect(groupsHave(groups, '7', 'a')).toBe(false);
	});
});

describe('trimSeen', () => {
	it('moves the floor forward to the minimum and forgets ids below it, never moving it back', () => {
		const seen = { '10': ['a'], '20': ['b'], '30': ['c'] };
		expect(trimSeen(seen, 5, 15, 30)).toEqual({ seen: { '20': ['b'], '30': ['c'] }, floor: 15 });
		expect(trimSeen(seen, 25, 15, 30)).toEqual({ seen: { '30': ['c'] }, floor: 25 });
	});

	it('over the id limit, forgets whole milliseconds oldest first and moves the floor past them', () => {
		const seen = { '10': ['a', 'b'], '20': ['c', 'd'], '30': ['e'] };
		expect(trimSeen(seen, 0, 0, 30, 3)).toEqual({
			seen: { '20': ['c', 'd'], '30': ['e'] },
			floor: 11,
		});
		expect(trimSeen(seen, 0, 0, 30, 2)).toEqual({ seen: { '30': ['e'] }, floor: 21 });
	});

	it("never forgets the watermark's millisecond, even over the limit", () => {
		const seen = { '30': ['a', 'b', 'c', 'd'] };
		expect(trimSeen(seen, 0, 0, 30, 2)).toEqual({ seen: { '30': ['a', 'b', 'c', 'd'] }, floor: 0 });
	});

	it('keeps at most 1,000 ids by default', () => {
		const seen: Record<string, string[]> = {};
		for (let ms = 1; ms <= 1_200; ms++) seen[String(ms)] = [`id${ms}`];
		const trimmed = trimSeen(seen, 0, 0, 1_200);
		expect(MAX_REMEMBERED_IDS).toBe(1_000);
		expect(Object.keys(trimmed.seen)).toHaveLength(1_000);
		expect(trimmed.floor).toBe(201);
	});
});
