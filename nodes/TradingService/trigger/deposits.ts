import {
	NodeOperationError,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type IPollFunctions,
} from 'n8n-workflow';

import { DAY_MS } from '../constants';
import { locatorValue } from '../helpers/validation';
import { ServiceClient, toNodeError } from '../transport';
import { WALLET_ENDPOINTS } from '../wallet/endpoints';
import {
	DEPOSIT_FINAL,
	DEPOSIT_STATUSES,
	DEPOSIT_SUCCESSFUL,
	TimeWalk,
	WALLET_PAGE_SIZE,
	WalletPageError,
	withStatusText,
} from '../wallet/walletPages';
import {
	DEPOSIT_RECEIVED,
	END_MARGIN_MS,
	exactFilterValue,
	readLateWindowMs,
} from './pollParameters';

/**
 * Deposit Received (docs/trigger.md): every deposit that becomes successful (status 4), once,
 * oldest first. A deposit's `time` is when its order was created, and it may turn successful
 * polls later, so the trigger remembers the deposits not yet successful (`pending`) and reads back
 * to the oldest of them, at most PENDING_DAYS: a deposit pending longer is no longer watched.
 */

/** How long a deposit that is not yet successful is watched (the history keeps deposits 30 days). */
export const PENDING_DAYS = 30;
/**
 * Deposit IDs kept in static data: beyond MAX_REMEMBERED_DEPOSITS the oldest are forgotten and
 * `from` moves past them, but never past a pending deposit; beyond MAX_HELD_DEPOSITS it does, and
 * the pending deposits below it are no longer watched (a warning names them).
 */
export const MAX_REMEMBERED_DEPOSITS = 5000;
export const MAX_HELD_DEPOSITS = 10000;
const STATE_VERSION = 1;

/** What is kept in static data between polls: server times only. */
export interface DepositState {
	version: number;
	query: string;
	/** The newest deposit time read (creation), or null before the first deposit. */
	cursor: number | null;
	/** Where the next read starts: the late window below the cursor, or the oldest pending deposit. */
	from: number;
	/** Successful deposits already emitted (or known at activation): ID -> time. */
	done: Record<string, number>;
	/** Deposits not successful yet and not failed or refunded: ID -> time. */
	pending: Record<string, number>;
}

interface DepositSettings {
	coin?: string;
	lateWindowMs: number;
}

type Deposit = IDataObject & { depositOrderId: string; time: string };

const isTimes = (value: unknown): value is Record<string, number> =>
	value !== null &&
	typeof value === 'object' &&
	!Array.isArray(value) &&
	Object.values(value).every((time) => Number.isSafeInteger(time));

export function readDepositState(staticData: IDataObject, query: string): DepositState | undefined {
	const { version, cursor, from, done, pending } = staticData;
	if (version !== STATE_VERSION || staticData.query !== query) return undefined;
	if (!(cursor === null || Number.isSafeInteger(cursor)) || !Number.isSafeInteger(from)) return;
	if (!isTimes(done) || !isTimes(pending)) return undefined;
	return {
		version,
		query,
		cursor: cursor as number | null,
		from: from as number,
		done: { ...done },
		pending: { ...pending },
	};
}

function writeDepositState(staticData: IDataObject, state: DepositState): void {
	for (const key of Object.keys(staticData)) delete staticData[key];
	Object.assign(staticData, {
		...state,
		done: { ...state.done },
		pending: { ...state.pending },
	});
}

function readDepositSettings(context: IPollFunctions): DepositSettings {
	const node = context.getNode();
	const filters = context.getNodeParameter('filters', {}) as IDataObject;
	const symbol = locatorValue(filters.symbol);
	if (symbol !== undefined && symbol !== null && symbol !== '') {
		throw new NodeOperationError(node, 'Filters › Symbol: does not apply to Deposit Received', {
			description:
				'A deposit has a coin, not a symbol. Remove the Symbol filter; to follow one coin, set Filters › Coin, e.g. USDT.',
		});
	}
	return {
		coin: exactFilterValue(node, 'Coin', locatorValue(filters.coin)),
		lateWindowMs: readLateWindowMs(context),
	};
}

export const depositQueryKey = (settings: DepositSettings) =>
	`event=${DEPOSIT_RECEIVED};coin=${JSON.stringify(settings.coin ?? null)}`;

/**
 * Every deposit of the range (of the Coin), each once, in no set order; `skipped`: milliseconds
 * holding more deposits than a page (read around, as the other events do: an error would repeat
 * on every poll and block every later deposit).
 */
async function readDeposits(
	node: INode,
	client: ServiceClient,
	settings: DepositSettings,
	range: { startTime: number; endTime: number },
	wanted?: (deposit: Deposit) => boolean,
): Promise<{ deposits: Deposit[]; skipped: number[] }> {
	const keep = (record: IDataObject) =>
		typeof record.depositOrderId === 'string' &&
		(settings.coin === undefined || record.coin === settings.coin) &&
		(wanted === undefined || wanted(record as Deposit));
	const walk = new TimeWalk(node, range, 'depositOrderId', {
		keep,
		wanted: wanted === undefined ? undefined : 1,
		overfull: 'skip',
	});
	await client.requestAllPages(WALLET_ENDPOINTS.deposits, walk);
	return { deposits: walk.records as Deposit[], skipped: walk.skipped };
}

const isSuccessful = (deposit: IDataObject) => Number(deposit.status) === DEPOSIT_SUCCESSFUL;
const isFinal = (deposit: IDataObject) => DEPOSIT_FINAL.includes(Number(deposit.status));

/** Oldest first: by creation time, then by the ID's digits. */
export function depositsOldestFirst(a: Deposit, b: Deposit): number {
	const x = a.depositOrderId.replace(/^\D+/, '');
	const y = b.depositOrderId.replace(/^\D+/, '');
	return Number(a.time) - Number(b.time) || x.length - y.length || (x < y ? -1 : x > y ? 1 : 0);
}

/** The time of the `count`-th newest of `times`: from it up, `count` of them are kept. */
const keepFrom = (times: number[], count: number) =>
	times.length > count ? times.sort((a, b) => b - a)[count - 1] : -Infinity;

/**
 * The state after reading `deposits` from `readStart`, the deposits that became successful since
 * the state was written (none on the first activation: `state` undefined), and the pending
 * deposits no longer watched (older than `readStart`, or beyond MAX_HELD_DEPOSITS).
 */
export function followDeposits(
	settings: DepositSettings,
	query: string,
	state: DepositState | undefined,
	readStart: number,
	deposits: readonly Deposit[],
): { state: DepositState; fresh: Deposit[]; dropped: string[] } {
	const done = { ...(state?.done ?? {}) };
	const pending = { ...(state?.pending ?? {}) };
	let cursor = state?.cursor ?? null;
	const fresh: Deposit[] = [];
	for (const deposit of deposits) {
		const id = deposit.depositOrderId;
		const time = Number(deposit.time);
		if (cursor === null || time > cursor) cursor = time;
		if (isSuccessful(deposit)) {
			delete pending[id];
			if (done[id] === undefined && state !== undefined) fresh.push(deposit);
			done[id] = time;
		} else if (isFinal(deposit)) delete pending[id];
		else if (done[id] === undefined) pending[id] = time;
	}
	const lowest = Math.min(...Object.values(pending));
	let from = Math.max(
		readStart,
		Math.min(cursor === null ? readStart : cursor - settings.lateWindowMs, lowest),
	);
	const held = [...Object.values(done), ...Object.values(pending)].filter((time) => time >= from);
	from = Math.max(
		from,
		Math.min(keepFrom(held, MAX_REMEMBERED_DEPOSITS), lowest),
		keepFrom(held, MAX_HELD_DEPOSITS),
	);
	const dropped = Object.keys(pending).filter((id) => pending[id] < from);
	const above = (times: Record<string, number>) =>
		Object.fromEntries(Object.entries(times).filter(([, time]) => time >= from));
	const next = {
		version: STATE_VERSION,
		query,
		cursor,
		from,
		done: above(done),
		pending: above(pending),
	};
	return { state: next, fresh: fresh.sort(depositsOldestFirst), dropped };
}

/** Warns of what this poll could not follow: nothing is dropped without a word. */
function warnDropped(
	context: IPollFunctions,
	state: DepositState | undefined,
	read: { deposits: Deposit[]; skipped: number[] },
	dropped: string[],
): void {
	const known = (id: string) => state?.done[id] !== undefined || state?.pending[id] !== undefined;
	for (const ms of read.skipped) {
		// Warned while that millisecond holds a deposit the state did not know (once, usually).
		if (!read.deposits.some((d) => Number(d.time) === ms && !known(d.depositOrderId))) continue;
		context.logger.warn(
			`Trading Service Trigger: more than ${WALLET_PAGE_SIZE} deposits share the millisecond ${ms} (${new Date(ms).toISOString()}); the service returns at most ${WALLET_PAGE_SIZE} of them, so any beyond that cannot be read and were skipped`,
		);
	}
	if (dropped.length === 0) return;
	context.logger.warn(
		`Trading Service Trigger: no longer watching ${dropped.length} deposits not successful yet (${PENDING_DAYS} days old, or beyond the ${MAX_HELD_DEPOSITS} deposits the trigger remembers): ${dropped.join(', ')}; if one succeeds later it is not emitted`,
	);
}

/** One poll of Deposit Received; the state is written only once every request has succeeded. */
export async function pollDepositReceived(
	context: IPollFunctions,
): Promise<INodeExecutionData[][] | null> {
	const node = context.getNode();
	const settings = readDepositSettings(context);
	const client = new ServiceClient(context);
	const now = Date.now();
	const oldest = now - PENDING_DAYS * DAY_MS;
	const endTime = now + END_MARGIN_MS;
	const item = (deposit: Deposit): INodeExecutionData => ({
		json: withStatusText(deposit, DEPOSIT_STATUSES),
	});
	try {
		if (context.getMode() === 'manual') {
			const range = { startTime: oldest, endTime };
			const read = await readDeposits(node, client, settings, range, isSuccessful);
			const newest = read.deposits.sort(depositsOldestFirst).at(-1);
			if (newest !== undefined) return [[item(newest)]];
			const ofCoin = settings.coin === undefined ? '' : ` of coin "${settings.coin}"`;
			throw new NodeOperationError(
				node,
				`No successful deposit${ofCoin} in the last ${PENDING_DAYS} days`,
				{
					description:
						'The trigger will fire on the next deposit that succeeds once the workflow is active.',
				},
			);
		}
		const staticData = context.getWorkflowStaticData('node');
		const query = depositQueryKey(settings);
		const state = readDepositState(staticData, query);
		const readStart = Math.max(state?.from ?? oldest, oldest);
		const read = await readDeposits(node, client, settings, { startTime: readStart, endTime });
		const outcome = followDeposits(settings, query, state, readStart, read.deposits);
		warnDropped(context, state, read, outcome.dropped);
		if (JSON.stringify(outcome.state) !== JSON.stringify(state))
			writeDepositState(staticData, outcome.state);
		return outcome.fresh.length > 0 ? [outcome.fresh.map(item)] : null;
	} catch (error) {
		// The list answered the same full page for a narrower range: it says nothing reliable.
		if (!(error instanceof WalletPageError)) throw toNodeError(node, error);
		context.logger.warn(
			`Trading Service Trigger: ${error.message}; this poll emitted nothing and the next poll reads the same range again`,
		);
		return null;
	}
}
