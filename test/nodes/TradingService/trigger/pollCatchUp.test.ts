import { ServiceClient } from '../../../../nodes/TradingService/transport';
import {
	catchUp,
	nextState,
	type CatchUp,
} from '../../../../nodes/TradingService/trigger/pollCatchUp';
import { pollBounds, readSettings } from '../../../../nodes/TradingService/trigger/pollParameters';
import type { TriggerState } from '../../../../nodes/TradingService/trigger/pollState';
import { historyRequests, queryParam } from '../../../support/trigger';
import { useSandbox } from '../../../support/sandbox';
import { MINUTE, QUERY, addFundingFees, inPoll, record } from './support';

// The catch-up of every poll after the first: the next state from what was read (pure), and the
// reads themselves through n8n-core's poll functions against the sandbox.

const state = (overrides: Partial<TriggerState>): TriggerState => ({
	version: 1,
	query: QUERY,
	watermark: null,
	floor: 0,
	seen: {},
	...overrides,
});

describe('nextState', () => {
	it('moves the watermark to the newest record read and the floor behind it', () => {
		const next = nextState(
			10 * MINUTE,
			state({ watermark: 60 * MINUTE, floor: 50 * MINUTE, seen: { [60 * MINUTE]: ['1'] } }),
			[record('3', 70 * MINUTE), record('2', 65 * MINUTE)],
			undefined,
		);
		expect(next).toEqual(
			state({
				watermark: 70 * MINUTE,
				floor: 60 * MINUTE,
				seen: { [60 * MINUTE]: ['1'], [65 * MINUTE]: ['2'], [70 * MINUTE]: ['3'] },
			}),
		);
	});

	it('never moves the watermark or the floor back, and drops nothing read below the floor into seen', () => {
		const next = nextState(
			10 * MINUTE,
			state({ watermark: 60 * MINUTE, floor: 55 * MINUTE }),
			[record('1', 54 * MINUTE)],
			undefined,
		);
		expect(next).toMatchObject({ watermark: 60 * MINUTE, floor: 55 * MINUTE, seen: {} });
	});

	it('no record yet and none read: unchanged; a resume point is kept', () => {
		const resume = { from: 1, to: 5, known: { '5': ['9'] } };
		expect(nextState(10 * MINUTE, state({ floor: 7 }), [], undefined)).toEqual(state({ floor: 7 }));
		expect(nextState(10 * MINUTE, state({ floor: 7 }), [], resume).resume).toEqual(resume);
	});
});

describe('catchUp', () => {
	const sandbox = useSandbox({ rateLimit: false, requestRates: false });
	/** One active poll of a funding-fee trigger node that runs the catch-up from `from`. */
	const catchUpFrom = (from: TriggerState, deadline?: number): Promise<CatchUp> =>
		inPoll(sandbox(), (context) => {
			const settings = readSettings(context);
			const bounds = pollBounds(settings, Date.now());
			return catchUp(context, new ServiceClient(context), settings, from, bounds, deadline);
		});

	const fundingFees = (createdList: number[]) =>
		addFundingFees(
			sandbox(),
			createdList.map((created, index) => ({ created, change: `-0.${index + 1}` })),
		);

	it('reads from the floor in one request: only records not seen are fresh', async () => {
		const now = sandbox().now();
		const [seen, late, fresh] = fundingFees([now - 5 * MINUTE, now - 7 * MINUTE, now - MINUTE]);
		const from = state({
			watermark: Number(seen.created),
			floor: Number(seen.created) - 10 * MINUTE,
			seen: { [seen.created]: [seen.id] },
		});
		const result = await catchUpFrom(from);
		expect(result.fresh.map((one) => one.id)).toEqual([fresh.id, late.id]);
		expect(result.state).toMatchObject({
			watermark: Number(fresh.created),
			floor: Number(fresh.created) - 10 * MINUTE,
		});
		expect(result.state.resume).toBeUndefined();
		const requests = historyRequests(sandbox());
		expect(requests).toHaveLength(1);
		expect(queryParam(requests[0], 'startTime')).toBe(String(from.floor));
	});

	it('a deadline already past stops after the first page and says where the next poll goes on', async () => {
		const now = sandbox().now();
		const records = fundingFees(
			Array.from({ length: 700 }, (_, index) => now - MINUTE - index * 10),
		);
		const from = state({ watermark: now - 20 * MINUTE, floor: now - 30 * MINUTE });
		const result = await catchUpFrom(from, Date.now() - 1);
		expect(historyRequests(sandbox())).toHaveLength(1);
		expect(result.fresh).toHaveLength(500);
		const resume = result.state.resume!;
		expect(resume.from).toBe(from.floor);
		expect(resume.to).toBe(Number(records[499].created));
		expect(resume.known[records[499].created]).toEqual([records[499].id]);
	});

	it('an unfinished catch-up is read first, then the range from the floor; each record once', async () => {
		const now = sandbox().now();
		const [older, handled, newer] = fundingFees([
			now - 40 * MINUTE,
			now - 30 * MINUTE,
			now - MINUTE,
		]);
		const from = state({
			watermark: now - 5 * MINUTE,
			floor: now - 15 * MINUTE,
			resume: {
				from: now - 50 * MINUTE,
				to: Number(handled.created),
				known: { [handled.created]: [handled.id] },
			},
		});
		const result = await catchUpFrom(from);
		expect(result.fresh.map((one) => one.id)).toEqual([older.id, newer.id]);
		expect(result.state.resume).toBeUndefined();
		const requests = historyRequests(sandbox());
		expect(requests.map((request) => queryParam(request, 'startTime'))).toEqual([
			String(now - 50 * MINUTE),
			String(from.floor),
		]);
	});

	it('an unfinished catch-up older than the service keeps is dropped, and the regular read goes on', async () => {
		const now = sandbox().now();
		const [newer] = fundingFees([now - MINUTE]);
		const from = state({
			watermark: now - 5 * MINUTE,
			floor: now - 15 * MINUTE,
			resume: { from: now - 60 * 24 * 60 * MINUTE, to: now - 40 * 24 * 60 * MINUTE, known: {} },
		});
		const result = await catchUpFrom(from);
		expect(result.fresh.map((one) => one.id)).toEqual([newer.id]);
		expect(historyRequests(sandbox())).toHaveLength(1);
	});
});
