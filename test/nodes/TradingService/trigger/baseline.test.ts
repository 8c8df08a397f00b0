import { LIMITS } from '../../../../nodes/TradingService/constants';
import { HistoryPageError } from '../../../../nodes/TradingService/helpers/historyPage';
import { ServiceClient } from '../../../../nodes/TradingService/transport';
import { baselineState, takeBaseline } from '../../../../nodes/TradingService/trigger/poll';
import { pollBounds, readSettings } from '../../../../nodes/TradingService/trigger/pollParameters';
import { HISTORY_PATH, historyRequests, queryParam } from '../../../support/trigger';
import { useSandbox } from '../../../support/sandbox';
import { MINUTE, QUERY, addFundingFees, inPoll, record } from './support';

// The first activation's baseline: the state built from the newest page (pure, fixed pages), and
// the one request that reads it (n8n-core's real poll functions against the sandbox).

describe('baselineState', () => {
	it('no record yet: no watermark, the floor at the range start, nothing seen', () => {
		expect(baselineState([], 10 * MINUTE, 1000, QUERY)).toEqual({
			version: 1,
			query: QUERY,
			watermark: null,
			floor: 1000,
			seen: {},
		});
	});

	it('the newest created is the watermark; ids within the late window are remembered', () => {
		const now = 100 * MINUTE;
		const page = [
			record('3', now),
			record('2', now),
			record('1', now - 5 * MINUTE),
			record('0', now - 20 * MINUTE),
		];
		expect(baselineState(page, 10 * MINUTE, 0, QUERY)).toEqual({
			version: 1,
			query: QUERY,
			watermark: now,
			floor: now - 10 * MINUTE,
			seen: { [String(now)]: ['3', '2'], [String(now - 5 * MINUTE)]: ['1'] },
		});
	});

	it('a full page may have cut its oldest millisecond short: the floor goes above it', () => {
		const page = Array.from({ length: LIMITS.historyPageSize }, (_, index) =>
			record(String(index), 1_000_000 - Math.floor(index / 2)),
		);
		const oldest = 1_000_000 - (LIMITS.historyPageSize / 2 - 1);
		const state = baselineState(page, 10 * MINUTE, 0, QUERY);
		expect(state.watermark).toBe(1_000_000);
		expect(state.floor).toBe(oldest + 1);
		expect(state.seen[String(oldest)]).toBeUndefined();
		expect(Object.values(state.seen).flat()).toHaveLength(LIMITS.historyPageSize - 2);
	});

	it('a late window of 0 keeps only the watermark millisecond', () => {
		const state = baselineState([record('2', 50), record('1', 40)], 0, 0, QUERY);
		expect(state).toMatchObject({ watermark: 50, floor: 50, seen: { '50': ['2'] } });
	});
});

describe('takeBaseline', () => {
	const sandbox = useSandbox({ rateLimit: false, requestRates: false });

	const baseline = () =>
		inPoll(sandbox(), async (context) => {
			const settings = readSettings(context);
			const bounds = pollBounds(settings, Date.now());
			const state = await takeBaseline(
				context.getNode(),
				new ServiceClient(context),
				settings,
				bounds,
				QUERY,
			);
			return { state, bounds };
		});

	it('sends one request over the whole retention window and remembers what exists', async () => {
		const now = sandbox().now();
		const [older, newer] = addFundingFees(
			sandbox(),
			[3, 1].map((ago, index) => ({ created: now - ago * MINUTE, change: `-0.${index + 1}` })),
		);
		const { state, bounds } = await baseline();
		expect(state).toEqual({
			version: 1,
			query: QUERY,
			watermark: Number(newer.created),
			floor: Number(newer.created) - 10 * MINUTE,
			seen: { [older.created]: [older.id], [newer.created]: [newer.id] },
		});
		const requests = historyRequests(sandbox());
		expect(requests).toHaveLength(1);
		expect(queryParam(requests[0], 'flowType')).toBe('32');
		expect(queryParam(requests[0], 'startTime')).toBe(String(bounds.start));
		expect(queryParam(requests[0], 'endTime')).toBe(String(bounds.end));
		expect(queryParam(requests[0], 'limit')).toBe(String(LIMITS.historyPageSize));
		expect(queryParam(requests[0], 'accountType')).toBeUndefined();
	});

	it('an empty history: no watermark, the floor at the start of the range', async () => {
		const { state, bounds } = await baseline();
		expect(state).toMatchObject({ watermark: null, floor: bounds.start, seen: {} });
	});

	it('a page in no order is refused as a history page error, so the poll can skip it', async () => {
		const now = sandbox().now();
		addFundingFees(
			sandbox(),
			[3, 2, 1].map((ago) => ({ created: now - ago * MINUTE, change: '-1' })),
		);
		sandbox().setFaults({ rules: [{ kind: 'historyUnordered', times: 1, path: HISTORY_PATH }] });
		await expect(baseline()).rejects.toBeInstanceOf(HistoryPageError);
	});
});
