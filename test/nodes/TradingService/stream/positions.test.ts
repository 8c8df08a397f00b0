/**
 * Position Changed (stream/positions.ts): the UAE documentation's Position Push read into an item,
 * another account's push dropped, a position's change decided against the last known state; then,
 * through n8n-core's trigger path (tools/harness/realTime.ts) against the sandbox, one item per
 * change across a dropped socket, a restart and a crash between an emit and its execution.
 */
import { itemOf } from '../../../../nodes/TradingService/stream/events';
import { eventsOfMessage } from '../../../../nodes/TradingService/stream/messages';
import {
	positionChangeOfPush,
	positionState,
	positionStep,
} from '../../../../nodes/TradingService/stream/positions';
import { contractAccountOf } from '../../../../nodes/TradingService/stream/streamSettings';
import { DEMO_ACCOUNTS, DEMO_KEYS, type Sandbox } from '../../../../sandbox';
import { credentialsFor } from '../../../../tools/harness/node';
import type { RealTimeRunner } from '../../../../tools/harness/realTime';
import { sleep, useRealTimeRunners } from '../../../support/realTime';

/** The UAE documentation's Position Push example, as it prints it. */
const DOC_PUSH = {
	e: 'outboundContractPositionInfo',
	E: '1769069566346',
	A: '2129188333171126016',
	s: 'BTCUSD-PERPETUAL',
	S: 'LONG',
	p: '91444.6',
	P: '0.196',
	f: '0',
	m: '4400.349',
	r: '-236.80662126',
	up: '-321.7542',
	pr: '-0.0731',
	pv: '17601.3962',
	v: '4',
	mt: 'CROSS',
};

describe('Position Changed: the stream push', () => {
	it('reads the documentation example into readable fields, decimals as text', () => {
		const { events, skipped, foreign } = eventsOfMessage([DOC_PUSH], 5, '10001', DOC_PUSH.A);
		expect({ skipped, foreign }).toEqual({ skipped: 0, foreign: 0 });
		expect(events).toHaveLength(1);
		const item = itemOf(events[0], 'positionChanged');
		expect(item).toEqual({
			event: 'positionChanged',
			eventId: 'position-BTCUSD-PERPETUAL-LONG-1769069566346-0.196',
			source: 'stream',
			market: 'contract',
			eventTime: '1769069566346',
			symbol: 'BTCUSD-PERPETUAL',
			side: 'LONG',
			avgPrice: '91444.6',
			position: '0.196',
			liquidationPrice: '0',
			margin: '4400.349',
			realizedPnL: '-236.80662126',
			unrealizedPnL: '-321.7542',
			profitRate: '-0.0731',
			positionValue: '17601.3962',
			leverage: '4',
			marginType: 'CROSS',
			accountId: DOC_PUSH.A,
			raw: DOC_PUSH,
		});
		// `available` only when sent (the family's `a`); numbers sent as JSON numbers become text.
		const [withAvailable] = eventsOfMessage(
			{ ...DOC_PUSH, a: '0.1', P: 0.196 },
			5,
			undefined,
			DOC_PUSH.A,
		).events;
		expect(withAvailable).toMatchObject({ available: '0.1', position: '0.196' });
	});

	it("another account's push never becomes an event; without Position Changed pushes are dropped quietly", () => {
		const other = { ...DOC_PUSH, A: '10003' };
		expect(eventsOfMessage([other], 5, '10001', DOC_PUSH.A)).toEqual({
			events: [],
			skipped: 0,
			foreign: 1,
		});
		// A push naming no account is no proof it is the key's own.
		const unnamed: Record<string, string> = { ...DOC_PUSH };
		delete unnamed.A;
		expect(eventsOfMessage([unnamed], 5, '10001', DOC_PUSH.A).foreign).toBe(1);
		// `a` of a position push is not an account: the key's trading account ID there changes nothing.
		expect(eventsOfMessage([{ ...other, a: '10001' }], 5, '10001', DOC_PUSH.A).foreign).toBe(1);
		expect(eventsOfMessage([DOC_PUSH], 5, '10001', undefined)).toEqual({
			events: [],
			skipped: 0,
			foreign: 0,
		});
		const sizeless: Record<string, string> = { ...DOC_PUSH };
		delete sizeless.P;
		expect(eventsOfMessage([sizeless], 5, '10001', DOC_PUSH.A).skipped).toBe(1);
	});

	it('the key’s futures account: its one type-3 account not labelled as a sub account’s', () => {
		const main = { accountId: '10001', accountType: 1, accountLabel: 'Main Trading Account' };
		const futures = { accountId: '10003', accountType: 3, accountLabel: 'Futures Account' };
		const subFutures = { accountId: '20003', accountType: 3, accountLabel: 'Sub Futures Account' };
		expect(contractAccountOf([main, futures, subFutures])).toBe('10003');
		expect(contractAccountOf([main])).toBeUndefined();
		expect(contractAccountOf([futures, { ...futures, accountId: '10004' }])).toBeUndefined();
	});

	it('a change is a new size; a repeat, or a push of the same size (margin, PnL, funding), is none', () => {
		const change = positionChangeOfPush(DOC_PUSH, 1)!;
		const known = {};
		const first = positionStep(known, new Map(), change)!;
		expect(first.mark).toEqual({ state: '0.196', from: '0', id: change.id });
		const marks = { 'BTCUSD-PERPETUAL|LONG': first.mark };
		// The same state again (a duplicate, or only margin and unrealized PnL moved): no event.
		const moved = positionChangeOfPush(
			{ ...DOC_PUSH, E: '1769069567000', m: '4401', up: '-1' },
			1,
		)!;
		expect(positionStep(marks, new Map(), moved)).toBeUndefined();
		expect(positionStep(marks, new Map(), { ...moved, position: '0.1960' })).toBeUndefined();
		// Closed: size 0 whatever the rest says.
		expect(positionState({ position: '0.000' })).toBe('0');
		const closed = positionChangeOfPush({ ...DOC_PUSH, E: '1769069568000', P: '0', p: '0' }, 1)!;
		expect(positionStep(marks, new Map(), closed)?.mark).toMatchObject({
			state: '0',
			from: '0.196',
		});
		// A change replayed after a restart keeps the ID it was emitted with.
		const replays = new Map([['BTCUSD-PERPETUAL|LONG', first.mark]]);
		const again = positionChangeOfPush({ ...DOC_PUSH, E: '1769069569999' }, 1)!;
		expect(positionStep({}, replays, again)?.event.id).toBe(change.id);
		expect(replays.size).toBe(0);
	});
});

const POSITIONS = { events: ['positionChanged'] };
const BTC = 'BTCUSDT-PERPETUAL';
const ETH = 'ETHUSDT-PERPETUAL';
const SOL = 'SOLUSDT-PERPETUAL';

const { sandbox, runner, connected } = useRealTimeRunners({
	runnerDefaults: { parameters: POSITIONS },
	settleMs: 300,
});

const fill = (sb: Sandbox, symbol: string, side: 'BUY' | 'SELL', quantity: string) =>
	sb.futures.fill({ symbol, side, quantity });

const summary = (r: RealTimeRunner) =>
	r.items().map((item) => `${String(item.symbol)} ${String(item.position)} ${String(item.source)}`);

describe('Position Changed in the trigger, against the sandbox', () => {
	it('a live change is one item from the stream; positions open before the activation are no event', async () => {
		const sb = sandbox();
		fill(sb, ETH, 'BUY', '0.5');
		const r = runner();
		await r.activate();
		await connected(r);
		const { position } = fill(sb, BTC, 'BUY', '0.01');
		await r.waitFor(() => r.executions.length === 1, 5_000, 'the change');
		await sleep(300);
		expect(r.executions).toHaveLength(1);
		const [item] = r.items();
		expect(item).toMatchObject({
			event: 'positionChanged',
			source: 'stream',
			market: 'contract',
			symbol: BTC,
			side: 'LONG',
			position: '0.01',
			avgPrice: position!.avgPrice,
			realizedPnL: position!.realizedPnL,
			margin: position!.margin,
			liquidationPrice: position!.liquidationPrice,
			accountId: DEMO_ACCOUNTS.mainContract,
		});
		expect(String(r.executions[0].deduplicationKey)).toContain(String(item.eventId));
	});

	it('the Contract filter: only that contract’s positions', async () => {
		const sb = sandbox();
		const r = runner({ parameters: { ...POSITIONS, filters: { contract: ETH } } });
		await r.activate();
		await connected(r);
		fill(sb, BTC, 'BUY', '0.01');
		fill(sb, ETH, 'BUY', '0.1');
		await r.waitFor(() => r.executions.length === 1, 5_000, 'the ETH change');
		await sleep(300);
		expect(summary(r)).toEqual([`${ETH} 0.1 stream`]);
	});

	it('across a dropped socket: what the stream brought is not repeated, what it missed comes once as caught up', async () => {
		const sb = sandbox();
		const r = runner();
		await r.activate();
		await connected(r);
		fill(sb, BTC, 'BUY', '0.01');
		await r.waitFor(() => r.executions.length === 1, 5_000, 'the live change');
		sb.stream.dropConnections();
		// While nobody listens: BTC twice (one item: its state now), ETH opened.
		fill(sb, BTC, 'BUY', '0.02');
		fill(sb, BTC, 'SELL', '0.01');
		fill(sb, ETH, 'BUY', '0.2');
		await connected(r, 2);
		await r.waitFor(() => r.executions.length === 3, 5_000, 'the caught-up changes');
		// Dropped again with no change meanwhile: nothing.
		sb.stream.dropConnections();
		await connected(r, 3);
		await sleep(500);
		expect(summary(r)).toEqual([`${BTC} 0.01 stream`, `${BTC} 0.02 catchUp`, `${ETH} 0.2 catchUp`]);
		// Closed while down: one item, size 0.
		sb.stream.dropConnections();
		fill(sb, ETH, 'SELL', '0.2');
		await connected(r, 4);
		await r.waitFor(() => r.executions.length === 4, 5_000, 'the close');
		await sleep(300);
		expect(r.items()[3]).toMatchObject({ symbol: ETH, position: '0', source: 'catchUp' });
		expect(r.executions).toHaveLength(4);
	});

	it('across restarts: changes made while n8n was down once, none twice, and a lost execution runs once', async () => {
		const sb = sandbox();
		const first = runner();
		await first.activate();
		await connected(first);
		fill(sb, BTC, 'BUY', '0.01');
		fill(sb, ETH, 'BUY', '0.3');
		await first.waitFor(() => first.executions.length === 2, 5_000, 'the live changes');
		await first.deactivate();
		// While n8n is down: ETH closed (back to its size before the last change), SOL opened.
		fill(sb, ETH, 'SELL', '0.3');
		fill(sb, SOL, 'BUY', '1');
		const second = runner({ staticData: first.saved, existingKeys: first.keys });
		await second.activate();
		await connected(second);
		await second.waitFor(() => second.executions.length === 2, 5_000, 'the changes while down');
		await sleep(300);
		expect(summary(second)).toEqual([`${SOL} 1 catchUp`, `${ETH} 0 catchUp`]);
		// BTC, emitted by the first process seconds before its state was saved, is emitted again
		// with its deduplication key and refused (n8n holds its execution).
		expect(second.duplicates).toHaveLength(1);
		expect(second.duplicates[0]).toContain(String(first.items()[0].eventId));
		await second.deactivate();

		// A crash between the emit and its execution: the state names the change, no execution
		// exists. The restart emits it again with the same key: it runs once.
		const third = runner({
			staticData: second.saved,
			existingKeys: second.keys,
			loseExecutionsFrom: 0,
		});
		await third.activate();
		await connected(third);
		fill(sb, BTC, 'BUY', '0.01');
		await sleep(500);
		expect(third.executions).toHaveLength(0);
		const lost = third.saved!;
		await third.deactivate();
		const fourth = runner({ staticData: lost, existingKeys: third.keys });
		await fourth.activate();
		await connected(fourth);
		await fourth.waitFor(() => fourth.executions.length === 1, 5_000, 'the lost change');
		await sleep(300);
		expect(summary(fourth)).toEqual([`${BTC} 0.02 catchUp`]);
		const [lostItem] = fourth.items();
		expect(String(lostItem.eventId)).toMatch(/^position-BTCUSDT-PERPETUAL-LONG-\d+-0\.02$/);
		await fourth.deactivate();
		// Nothing changed: the next restart emits nothing new.
		const fifth = runner({ staticData: fourth.saved, existingKeys: fourth.keys });
		await fifth.activate();
		await connected(fifth);
		await sleep(500);
		expect(fifth.executions).toHaveLength(0);
	});

	it('a spot pair as the Contract filter is refused before any request', async () => {
		const sb = sandbox();
		const before = sb.ledger.requests.length;
		const r = runner({ parameters: { ...POSITIONS, filters: { contract: 'BTCUSDT' } } });
		await expect(r.activate()).rejects.toThrow('"BTCUSDT" is not a futures contract');
		expect(sb.ledger.requests.length).toBe(before);
	});

	it('a key without a futures account of its own cannot follow positions: the activation says so', async () => {
		const sb = sandbox();
		const r = runner({ credentials: credentialsFor(sb, DEMO_KEYS.sub) });
		await expect(r.activate()).rejects.toThrow('This API key has no futures account of its own');
	});
});
