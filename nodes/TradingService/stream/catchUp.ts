import type { IDataObject } from 'n8n-workflow';

import type { AccountScope } from '../helpers/accountScope';
import { ENDPOINTS } from '../transport';
import type { Activation } from './activation';
import type { Emitter } from './emitter';
import { text, type BalanceChange } from './events';
import { MAX_LOOKUPS, catchUpOrders, catchUpStart, type OrderCatchUp } from './orderCatchUp';
import { readPositions } from './positions';
import { MAX_OPEN_ORDERS, balanceText } from './state';

/**
 * What happened while the stream was not listening, read over REST (at activation after a
 * restart, and after every reconnect, once the new connection is open) and handed to the emitter
 * like stream events: the orders first (orderCatchUp.ts), then the balances, which cannot be
 * replayed: each coin whose balance differs from the last known one becomes one snapshot, and the
 * futures positions (positions.ts). What a push brought meanwhile is not overwritten by an older
 * answer (ordering.ts).
 */

/**
 * One snapshot per coin whose free or locked balance differs from the last known one. The account
 * gives no time: each balance is as of the moment the request was sent.
 */
export async function catchUpBalances(
	{ client, clock }: Pick<Activation, 'client' | 'clock'>,
	lastKnown: Record<string, string>,
): Promise<BalanceChange[]> {
	const sentAt = clock.now();
	const answer = (await client.request(ENDPOINTS.account)) as { balances: IDataObject[] };
	const changes: BalanceChange[] = [];
	const listed = new Set<string>();
	const compare = (coin: string, free: string, locked: string, raw: IDataObject): void => {
		listed.add(coin);
		if (lastKnown[coin] === balanceText(free, locked)) return;
		changes.push({
			id: `balance-snapshot-${sentAt}-${coin}`,
			source: 'catchUp',
			market: 'spot',
			time: sentAt,
			clock: 'n8n',
			seenAt: sentAt,
			coin,
			free,
			locked,
			raw,
		});
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
}

/**
 * The positions at a catch-up: the first time (or for another futures account than the kept
 * state's) remembered as they are, with nothing emitted; after that, each handled as an event.
 */
async function catchUpPositions(activation: Activation, emitter: Emitter): Promise<void> {
	const { state, contractAccount } = activation;
	if (contractAccount === undefined) return;
	const baseline = state.positionAccount !== contractAccount;
	const changes = await readPositions(activation, baseline ? {} : state.positions, contractAccount);
	if (baseline) {
		state.positions = {};
		state.positionAccount = contractAccount;
		for (const change of changes) emitter.remember({ channel: 'position', ...change });
	} else {
		for (const change of changes) emitter.handle({ channel: 'position', ...change });
	}
}

/** The order events from the cursor's catch-up start to now. */
async function readOrders(activation: Activation, account: AccountScope): Promise<OrderCatchUp> {
	const { client, clock, node, state } = activation;
	const reader = { client, clock, scope: account };
	const since = catchUpStart(state.cursor, clock.now());
	const found = await catchUpOrders(reader, node, {
		since,
		open: state.open,
		tradeMark: activation.tradeMark,
	});
	activation.tradeMark = found.tradeMark;
	return found;
}

/**
 * First activation: what exists is remembered, nothing is emitted. The order changes of the
 * catch-up window before now are remembered as seen, so the first catch-up does not take them
 * for new.
 */
export async function takeBaseline(
	activation: Activation,
	emitter: Emitter,
	account: AccountScope,
): Promise<void> {
	const { state, clock, settings } = activation;
	state.cursor = clock.now();
	const found = await readOrders(activation, account);
	for (const change of [...found.unchanged, ...found.changes]) {
		emitter.remember({ channel: 'order', ...change });
		emitter.keep({ channel: 'order', ...change });
	}
	if (settings.kinds.has('balanceChanged')) await rememberBalances(activation, emitter);
	if (settings.kinds.has('positionChanged')) await catchUpPositions(activation, emitter);
}

/** What the orders read say of the orders last seen open that no read could show. */
function settleMissing(activation: Activation, found: OrderCatchUp, account: AccountScope): void {
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
			`order ${orderId}, last seen open, is not an order of account ${account.accountId} on the exchange; it is no longer looked for`,
		);
	}
}

/** What a catch-up found, handled like stream events: each is emitted unless seen already. */
export async function catchUp(
	activation: Activation,
	emitter: Emitter,
	account: AccountScope,
): Promise<void> {
	const { state, clock, settings } = activation;
	const startedAt = clock.now();
	const found = await readOrders(activation, account);
	// Every change before the catch-up started has now been read.
	state.cursor = Math.max(state.cursor, startedAt);
	settleMissing(activation, found, account);
	// Unchanged open orders stay open, unless a push said otherwise meanwhile (ordering.ts).
	for (const change of found.unchanged) emitter.keep({ channel: 'order', ...change });
	for (const change of found.changes) emitter.handle({ channel: 'order', ...change });
	if (settings.kinds.has('balanceChanged')) {
		if (Object.keys(state.balances).length === 0) await rememberBalances(activation, emitter);
		else
			for (const change of await catchUpBalances(activation, state.balances))
				emitter.handle({ channel: 'balance', ...change });
	}
	if (settings.kinds.has('positionChanged')) await catchUpPositions(activation, emitter);
	emitter.save();
}
