import { NodeOperationError, type IDataObject, type ITriggerFunctions } from 'n8n-workflow';

import { DAY_MS, LIMITS } from '../constants';
import type { AccountScope } from '../helpers/accountScope';
import { STREAM_TIMINGS, type Activation } from './activation';
import type { Emitter } from './emitter';
import { followsFutures, stampOf, text, type BalanceChange } from './events';
import { catchUpFuturesOrders, rememberFuturesOrders } from './futuresCatchUp';
import { MAX_LOOKUPS, catchUpOrders, type OrderCatchUp } from './orderCatchUp';
import { readPositions } from './positions';
import { MAX_OPEN_ORDERS, balanceText } from './streamState';
import { ACCOUNT_ENDPOINTS } from '../account/endpoints';

/**
 * The stream's outages: what happened meanwhile, read over REST (at activation after a restart,
 * after every reconnect once the new connection is open) and handed to the emitter like stream
 * events; an outage that lasts, reported.
 */

/**
 * One snapshot per coin whose free or locked balance differs from the last known one. The account
 * gives no time: each balance is as of the moment the request was sent.
 */
async function catchUpBalances(
	{ client, clock }: Pick<Activation, 'client' | 'clock'>,
	lastKnown: Record<string, string>,
): Promise<BalanceChange[]> {
	const sentAt = clock.now();
	const answer = (await client.request(ACCOUNT_ENDPOINTS.balances)) as { balances: IDataObject[] };
	const changes: BalanceChange[] = [];
	const listed = new Set<string>();
	const base = { source: 'catchUp', market: 'spot', ...stampOf(undefined, sentAt) } as const;
	const compare = (coin: string, free: string, locked: string, raw: IDataObject): void => {
		listed.add(coin);
		if (lastKnown[coin] === balanceText(free, locked)) return;
		changes.push({ id: `balance-snapshot-${sentAt}-${coin}`, ...base, coin, free, locked, raw });
	};
	for (const line of answer.balances) {
		const coin = text(line.asset) ?? text(line.coin);
		const free = text(line.free);
		const locked = text(line.locked);
		if (coin && free !== undefined && locked !== undefined) compare(coin, free, locked, line);
	}
	// A coin the account no longer lists went to zero.
	for (const coin of Object.keys(lastKnown))
		if (!listed.has(coin)) compare(coin, '0', '0', { asset: coin, free: '0', locked: '0' });
	return changes;
}

/** Every coin's balance now, kept as the last known one. */
async function rememberBalances(activation: Activation, emitter: Emitter): Promise<void> {
	for (const change of await catchUpBalances(activation, {}))
		emitter.keep({ channel: 'balance', ...change });
	// An account with no balances lists none: the marker, not the coins, says the baseline is taken.
	activation.state.balancesTaken = true;
}

/**
 * The positions now, remembered with nothing emitted, when the state has none of this futures
 * account's (a first activation, Position Changed newly chosen, a state older than it).
 */
async function rememberPositions(activation: Activation, emitter: Emitter): Promise<void> {
	const { state, contractAccount } = activation;
	if (contractAccount === undefined || state.positionAccount === contractAccount) return;
	const listed = await readPositions(activation, {}, contractAccount);
	state.positions = {};
	state.positionAccount = contractAccount;
	for (const change of listed) emitter.remember({ channel: 'position', ...change });
}

/** The positions at a catch-up, each handled as an event against its last known size. */
async function catchUpPositions(activation: Activation, emitter: Emitter): Promise<void> {
	const { state, contractAccount } = activation;
	if (contractAccount === undefined) return;
	for (const change of await readPositions(activation, state.positions, contractAccount))
		emitter.handle({ channel: 'position', ...change });
}

/** Where a catch-up starts: before the cursor by the overlap, within the fills' 30 days. */
function catchUpStart(cursor: number, now: number): number {
	const oldestTrade = now - LIMITS.accountTradesRetentionDays * DAY_MS + LIMITS.maxRecvWindowMs;
	return Math.max(cursor - STREAM_TIMINGS.catchUpOverlapMs, oldestTrade);
}

/** The account followed, resolved at activation. */
function followed({ account }: Activation): AccountScope {
	if (account === undefined) throw new Error('the account is resolved at activation');
	return account;
}

/** The order events from the cursor's catch-up start to now. */
async function readOrders(activation: Activation): Promise<OrderCatchUp> {
	const { client, clock, node, state } = activation;
	const reader = { client, clock, scope: followed(activation) };
	const since = catchUpStart(state.cursor, clock.now());
	const { tradeMark } = activation;
	const found = await catchUpOrders(reader, node, { since, open: state.open, tradeMark });
	activation.tradeMark = found.tradeMark;
	return found;
}

/**
 * The baseline the state lacks, taken before the connection opens so that no push is older than
 * it: what exists is remembered, nothing is emitted. At the first activation, everything (the order
 * changes of the catch-up window before now are remembered as seen: the first catch-up does not
 * take them for new); after a restart, the positions when the state has none of this account's.
 */
export async function takeBaseline(
	activation: Activation,
	emitter: Emitter,
	first: boolean,
): Promise<void> {
	const { state, clock, settings } = activation;
	if (first) {
		state.cursor = clock.now();
		const found = await readOrders(activation);
		for (const change of [...found.unchanged, ...found.changes]) {
			emitter.remember({ channel: 'order', ...change });
			emitter.keep({ channel: 'order', ...change });
		}
		if (settings.kinds.has('balanceChanged')) await rememberBalances(activation, emitter);
	}
	if (settings.kinds.has('positionChanged')) await rememberPositions(activation, emitter);
	if (followsFutures(settings.kinds, true))
		await rememberFuturesOrders(activation, emitter, catchUpStart(clock.now(), clock.now()));
	else {
		// Not followed meanwhile: futures events chosen again start from a new baseline.
		delete state.futuresOpen;
		delete state.futuresAccount;
		delete state.futuresSince;
		delete state.futuresCursor;
	}
}

/** What the orders read say of the orders last seen open that no read could show. */
function settleMissing(activation: Activation, found: OrderCatchUp): void {
	const { state, log } = activation;
	// Still open as far as anyone knows: the next catch-up looks for them again.
	const lookAgain = (orderId: string, symbol: string): void => {
		if (state.open[orderId] === undefined && Object.keys(state.open).length < MAX_OPEN_ORDERS)
			state.open[orderId] = symbol;
	};
	for (const { orderId, symbol, reason } of found.missing) {
		log.warn(
			`order ${orderId} could not be read in the catch-up (${reason}); the next catch-up tries again`,
		);
		lookAgain(orderId, symbol);
	}
	if (found.postponed.size > 0)
		log.info(
			`${found.postponed.size} order(s) that no list shows are left for the next catch-up (it looks up ${MAX_LOOKUPS} at most): ${[...found.postponed.keys()].join(', ')}`,
		);
	for (const [orderId, symbol] of found.postponed) lookAgain(orderId, symbol);
	for (const orderId of found.gone) {
		delete state.open[orderId];
		log.info(
			`order ${orderId}, last seen open, is not an order of account ${followed(activation).accountId} on the exchange; it is no longer looked for`,
		);
	}
}

/** What a catch-up found, handled like stream events: each is emitted unless seen already. */
export async function catchUp(activation: Activation, emitter: Emitter): Promise<void> {
	const { state, clock, settings } = activation;
	const startedAt = clock.now();
	const futures = followsFutures(settings.kinds, true) && state.futuresOpen !== undefined;
	// The futures part keeps the cursor it started from until it succeeds: the spot part moves
	// `cursor` first, and a futures read that failed is read again from there.
	if (futures) state.futuresCursor = Math.min(state.cursor, state.futuresCursor ?? state.cursor);
	const futuresSince = catchUpStart(state.futuresCursor ?? state.cursor, startedAt);
	const found = await readOrders(activation);
	// Every change before the catch-up started has now been read.
	state.cursor = Math.max(state.cursor, startedAt);
	settleMissing(activation, found);
	// Unchanged open orders stay open, unless a push said otherwise meanwhile.
	for (const change of found.unchanged) emitter.keep({ channel: 'order', ...change });
	for (const change of found.changes) emitter.handle({ channel: 'order', ...change });
	// Fills whose orders were left are read again by the next catch-up, from the same cursor.
	if (futures && (await catchUpFuturesOrders(activation, emitter, futuresSince)))
		delete state.futuresCursor;
	if (settings.kinds.has('balanceChanged')) {
		// Without the marker (a state older than it), known balances say the baseline was taken.
		if (!state.balancesTaken && Object.keys(state.balances).length === 0)
			await rememberBalances(activation, emitter);
		else
			for (const change of await catchUpBalances(activation, state.balances))
				emitter.handle({ channel: 'balance', ...change });
	}
	if (settings.kinds.has('positionChanged')) await catchUpPositions(activation, emitter);
	emitter.save();
}

/**
 * The catch-ups of one activation, one at a time, beside the connection rather than in its way
 * (docs/trigger.md, "Keeping the connection"). Asks made while one runs are one: a catch-up reads
 * from the cursor to its own start, so the next one covers every connection opened before it.
 */
export class CatchUps {
	private running?: Promise<void>;
	private again = false;

	constructor(
		private readonly hooks: {
			run: () => Promise<void>;
			/** The stream is whole again. */
			succeeded: () => void;
			/** The session drops the connection, and the next one asks again. */
			failed: (reason: string) => void;
			stopped: () => boolean;
		},
	) {}

	/** A catch-up after the connection that just opened: now, or after the one in progress. */
	request(): void {
		if (this.running !== undefined) this.again = true;
		else this.running = this.loop().finally(() => (this.running = undefined));
	}

	/** Settles when no catch-up is running. */
	async idle(): Promise<void> {
		await this.running;
	}

	private async loop(): Promise<void> {
		do {
			this.again = false;
			if (this.hooks.stopped()) return;
			try {
				await this.hooks.run();
				this.hooks.succeeded();
			} catch (error) {
				this.hooks.failed((error as Error).message);
			}
		} while (this.again);
	}
}

/**
 * When the stream stays unreachable for the Report Outage After minutes, the trigger saves one
 * failed execution (so the error workflow runs) and the log says why, while it keeps reconnecting.
 */
export class Outage {
	/** When the connection was first lost; undefined while connected. */
	private since?: number;
	private reported = false;

	constructor(private readonly activation: Activation) {}

	/** Connected (again). */
	end(): void {
		const { log } = this.activation;
		if (this.reported)
			log.info('the stream is back; what happened during the outage was read over REST');
		this.since = undefined;
		this.reported = false;
	}

	/** The connection ended or could not be made, for `problem`: reported once, when it lasted. */
	continue(problem: string): void {
		const { clock, settings } = this.activation;
		this.since ??= clock.now();
		const limitMs = settings.outageReportMinutes * STREAM_TIMINGS.minuteMs;
		if (this.reported || clock.now() - this.since < limitMs) return;
		reportOutage(this.activation, this.since, problem);
		this.reported = true;
	}
}

export function reportOutage(activation: Activation, since: number, problem: string): void {
	const { context, node, clock, log } = activation;
	const minutes = Math.max(1, Math.round((clock.now() - since) / STREAM_TIMINGS.minuteMs));
	const error = new NodeOperationError(
		node,
		`The exchange's real-time stream has been unreachable for ${minutes} minute${minutes === 1 ? '' : 's'}`,
		{
			description: `Last problem: ${problem}. The trigger keeps reconnecting; when the stream is back it reads the orders of the outage over REST, so no order event is lost. Check the Base URL and Stream URL of the credential and the exchange's status.`,
		},
	);
	const saveFailed = (context as Partial<ITriggerFunctions>).saveFailedExecution;
	if (typeof saveFailed === 'function') saveFailed.call(context, error);
	log.error(`${error.message}. ${error.description ?? ''}`);
}
