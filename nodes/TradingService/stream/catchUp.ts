import type { IDataObject } from 'n8n-workflow';

import type { AccountScope } from '../helpers/accountScope';
import { ENDPOINTS, type ServiceClient } from '../transport';
import type { Activation } from './activation';
import type { Emitter } from './emitter';
import { text, type BalanceChange } from './events';
import { readPositions } from './positions';
import { catchUpOrders } from './restOrders';
import { balanceText } from './state';

/**
 * What happened while the stream was not listening, read over REST (at activation after a
 * restart, and after every reconnect) and handed to the emitter like stream events: the orders
 * (restOrders.ts), the balances, which cannot be replayed: each coin whose balance differs
 * from the last known one becomes one snapshot, and the futures positions (positions.ts).
 */

/** One snapshot per coin whose free or locked balance differs from the last known one. */
export async function catchUpBalances(
	client: ServiceClient,
	lastKnown: Record<string, string>,
	now: number,
): Promise<BalanceChange[]> {
	const answer = (await client.request(ENDPOINTS.account)) as { balances: IDataObject[] };
	const changes: BalanceChange[] = [];
	const listed = new Set<string>();
	const compare = (coin: string, free: string, locked: string, raw: IDataObject): void => {
		listed.add(coin);
		if (lastKnown[coin] === balanceText(free, locked)) return;
		const id = `balance-snapshot-${now}-${coin}`;
		changes.push({ id, source: 'catchUp', market: 'spot', time: now, coin, free, locked, raw });
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
async function rememberBalances({ client, clock }: Activation, emitter: Emitter): Promise<void> {
	for (const change of await catchUpBalances(client, {}, clock.now()))
		emitter.track({ channel: 'balance', ...change });
}

/**
 * The positions at a catch-up: the first time (or for another futures account than the kept
 * state's) remembered as they are, with nothing emitted; after that, each handled as an event.
 */
async function catchUpPositions(activation: Activation, emitter: Emitter): Promise<void> {
	const { state, clock, contractAccount } = activation;
	if (contractAccount === undefined) return;
	const now = clock.now();
	const baseline = state.positionAccount !== contractAccount;
	const changes = await readPositions(
		activation,
		baseline ? {} : state.positions,
		now,
		contractAccount,
	);
	if (baseline) {
		state.positions = {};
		state.positionAccount = contractAccount;
		for (const change of changes) emitter.remember({ channel: 'position', ...change });
	} else {
		for (const change of changes) emitter.handle({ channel: 'position', ...change });
	}
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
	const { client, node, state, clock, settings } = activation;
	const now = clock.now();
	state.cursor = now;
	const found = await catchUpOrders(client, node, state, now, account);
	for (const change of found.orders) emitter.remember({ channel: 'order', ...change });
	state.open = found.open;
	if (settings.kinds.has('balanceChanged')) await rememberBalances(activation, emitter);
	if (settings.kinds.has('positionChanged')) await catchUpPositions(activation, emitter);
}

/** What a catch-up found, handled like stream events: each is emitted unless seen already. */
export async function catchUp(
	activation: Activation,
	emitter: Emitter,
	account: AccountScope,
): Promise<void> {
	const { client, node, state, clock, settings, log } = activation;
	const now = clock.now();
	const found = await catchUpOrders(client, node, state, now, account);
	// Every change before the catch-up started has now been read.
	state.cursor = Math.max(state.cursor, now);
	for (const { orderId, reason } of found.failed)
		log.warn(
			`order ${orderId} could not be read in the catch-up (${reason}); the next catch-up tries again`,
		);
	for (const orderId of found.gone) {
		delete state.open[orderId];
		log.info(
			`order ${orderId}, last seen open, is not an order of account ${account.accountId} on the exchange; it is no longer looked for`,
		);
	}
	// Orders the stream reported while the catch-up read stay tracked as the stream said.
	for (const change of found.orders) emitter.handle({ channel: 'order', ...change });
	const open: Record<string, string> = { ...found.open };
	for (const [orderId, symbol] of Object.entries(state.open))
		if (found.open[orderId] !== undefined) open[orderId] = symbol;
	state.open = open;
	if (settings.kinds.has('balanceChanged')) {
		if (Object.keys(state.balances).length === 0) await rememberBalances(activation, emitter);
		else
			for (const change of await catchUpBalances(client, state.balances, now))
				emitter.handle({ channel: 'balance', ...change });
	}
	if (settings.kinds.has('positionChanged')) await catchUpPositions(activation, emitter);
	emitter.save();
}
