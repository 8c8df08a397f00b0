/**
 * Deterministic synthetic history (Sandbox.seedRecords): `count` records of one flow type spread
 * evenly over [startTime, endTime], amounts and symbols drawn from a seeded PRNG. Balances are
 * not touched; the running `total` is the generator's own.
 */
import { DEFAULT_FUNDING_SYMBOLS, FLOW_TYPES } from './constants';
import { mulberry32 } from './prng';
import type { HistoryRecord, SeedRecordsOptions } from './types';

/** The account a flow type's records land on when the options name none. */
export function defaultAccountFor(flowType: number): string {
	switch (flowType) {
		case 32:
			return '10003';
		case 900:
		case 904:
			return '10005';
		case 906:
		case 910:
			return '10006';
		default:
			return '10001';
	}
}

/** +1 always credit, -1 always debit, 0 either. */
function signModeFor(flowType: number): number {
	switch (flowType) {
		case 2:
		case 904:
		case 910:
			return -1;
		case 900:
		case 906:
			return 1;
		default:
			return 0;
	}
}

/** Format an integer count of 1e-8 units as a decimal string. */
export function fmtUnits(units: number): string {
	const neg = units < 0;
	const a = Math.abs(units);
	const i = Math.floor(a / 1e8);
	const f = a % 1e8;
	let s = String(i);
	if (f !== 0) s += `.${String(f).padStart(8, '0').replace(/0+$/, '')}`;
	return neg ? `-${s}` : s;
}

/** The records of `opts` (already checked) on `accountId`, ids counting up from `firstId`. */
export function syntheticRecords(
	opts: SeedRecordsOptions,
	accountId: string,
	firstId: bigint,
): HistoryRecord[] {
	const ft = FLOW_TYPES[opts.flowType];
	const count = Math.floor(opts.count);
	const perMs = Math.max(1, Math.floor(opts.perMillisecond ?? 1));
	const coin = opts.coin ?? 'USDT';
	const symbols =
		opts.symbols ??
		(opts.flowType === 32
			? DEFAULT_FUNDING_SYMBOLS
			: opts.flowType === 1 || opts.flowType === 2
				? ['BTCUSDT']
				: []);
	const rnd = mulberry32(opts.seed ?? 1);
	const groups = Math.ceil(count / perMs);
	const span = opts.endTime - opts.startTime;
	const signMode = signModeFor(opts.flowType);
	// running total in units of 1e-8, kept as a safe integer
	let total = 1_000_000_000_000; // 10000
	const recs: HistoryRecord[] = new Array(count);
	let n = 0;
	for (let g = 0; g < groups && n < count; g++) {
		const t = groups > 1 ? opts.startTime + Math.floor((span * g) / (groups - 1)) : opts.startTime;
		const created = String(t);
		for (let k = 0; k < perMs && n < count; k++, n++) {
			let units = 1 + Math.floor(rnd() * 500_000_000); // 0.00000001 .. 5
			if (signMode < 0 || (signMode === 0 && rnd() < 0.5)) units = -units;
			if (total + units < 0) units = -units;
			total += units;
			const rec: HistoryRecord = {
				id: (firstId + BigInt(n)).toString(),
				accountId,
				coin,
				coinId: coin,
				coinName: coin,
				flowTypeValue: opts.flowType,
				flowType: ft.flowType,
				flowName: ft.flowName,
				change: fmtUnits(units),
				total: fmtUnits(total),
				created,
			};
			if (symbols.length > 0) rec.symbol = symbols[Math.floor(rnd() * symbols.length)];
			recs[n] = rec;
		}
	}
	return recs;
}
