/**
 * The baselines of the real-time trigger (stream/restCatchUp.ts, takeBaseline), through n8n-core's
 * trigger path (tools/harness/realTime.ts) against the sandbox over loopback: a positions baseline
 * a restart has to take is read before the connection opens, so no push is older than it; and the
 * balances' baseline is a marker in the state, so an account that had no balance at activation
 * reports a deposit made while the stream was down.
 */
import { DEMO_ACCOUNTS, type Sandbox } from '../../../../sandbox';
import type { RealTimeRunner } from '../../../../tools/harness/realTime';
import { sleep, useRealTimeRunners } from '../../../support/realTime';

const { sandbox, runner, connected } = useRealTimeRunners();

interface LiveState {
	savedAt: number;
	balances: Record<string, string>;
	balancesTaken?: boolean;
	positions: Record<string, { state: string }>;
	positionAccount?: string;
}

/** The trigger's state as it wrote it last (the live static data, not n8n's last save). */
function liveState(r: RealTimeRunner): LiveState {
	const [node] = Object.values(r.workflow.staticData) as Array<{ realTime: LiveState }>;
	return node.realTime;
}

/** Waits until the trigger wrote its state after `after` (ms): a catch-up ends with that write. */
async function caughtUp(r: RealTimeRunner, after: number): Promise<void> {
	await r.waitFor(() => liveState(r).savedAt > after, 15_000, 'the end of the catch-up');
}

/**
 * Connection `opened` and the catch-up after it (the emits of a catch-up and its end are written
 * in one go: the sleep covers the rest once the first is).
 */
async function connectedAndCaughtUp(r: RealTimeRunner, opened: number): Promise<void> {
	const at = Date.now();
	await connected(r, opened);
	await caughtUp(r, at);
	await sleep(300);
}

/** Drops the connection, lets the trigger reconnect and catch up, with nothing changed meanwhile. */
async function reconnectQuietly(sb: Sandbox, r: RealTimeRunner, opened: number): Promise<void> {
	sb.stream.dropConnections();
	await connectedAndCaughtUp(r, opened);
}

/**
 * Holds back the next answer of `path` (set at once): read when it arrives, sent a byte every
 * `dripMs` ms. Resolves once the sandbox has read it, so what changes afterwards is not in it.
 */
async function holdBackNext(sb: Sandbox, r: RealTimeRunner, path: string): Promise<void> {
	const from = sb.ledger.requests.length;
	sb.setFaults({
		rules: [{ kind: 'dripFeed', times: 1, path, method: 'GET', dripIntervalMs: 5 }],
	});
	await r.waitFor(
		() => sb.ledger.requests.slice(from).some((request) => request.fault === 'dripFeed'),
		10_000,
		`the ${path} read`,
	);
}

/**
 * An account that lists no coin (a new one, nothing deposited yet): the sandbox lists every coin an
 * account ever held, so its balances are cleared.
 */
function emptyBalances(sb: Sandbox): void {
	(sb as unknown as { engine: { balances: { clear(): void } } }).engine.balances.clear();
}

const summary = (r: RealTimeRunner, field: string) =>
	r.items().map((item) => `${String(item[field])} ${String(item.source)}`);

const BTC = 'BTCUSDT-PERPETUAL';
const POSITIONS = { events: ['positionChanged'] };
const BALANCES = { events: ['balanceChanged'] };

describe('the positions baseline of a restart', () => {
	it('Position Changed added to a workflow with a state: a change made while the baseline is read is one item, and the newest size is kept', async () => {
		const sb = sandbox();
		const before = runner({ parameters: { events: ['orderFilled'] } });
		await before.activate();
		await connected(before, 1);
		await before.deactivate();
		expect(JSON.stringify(before.saved)).not.toContain('positionAccount');
		sb.futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.01' });
		const r = runner({ parameters: POSITIONS, staticData: before.saved });
		const activation = r.activate();
		const onItsWay = holdBackNext(sb, r, '/api/v2/futures/positions');
		await onItsWay;
		// Read as 0.01; the position grows to 0.02 while that answer is on its way.
		sb.futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.01' });
		await activation;
		await connectedAndCaughtUp(r, 2);
		expect(summary(r, 'position')).toEqual(['0.02 catchUp']);
		expect(liveState(r).positions[`${BTC}|LONG`].state).toBe('0.02');
		expect(liveState(r).positionAccount).toBe(DEMO_ACCOUNTS.mainContract);
		// Kept older than what was emitted, the next catch-up would report 0.02 again.
		await reconnectQuietly(sb, r, 3);
		expect(summary(r, 'position')).toEqual(['0.02 catchUp']);
		sb.futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.01' });
		await r.waitFor(() => r.executions.length === 2, 5_000, 'the live change');
		await sleep(300);
		expect(summary(r, 'position')).toEqual(['0.02 catchUp', '0.03 stream']);
	});
});

describe('the balances baseline', () => {
	it('an account with no balance at activation: a deposit made while the stream was down is one item', async () => {
		const sb = sandbox();
		emptyBalances(sb);
		const r = runner({ parameters: BALANCES });
		await r.activate();
		await connectedAndCaughtUp(r, 1);
		expect(liveState(r).balances).toEqual({});
		expect(liveState(r).balancesTaken).toBe(true);
		sb.stream.dropConnections();
		sb.setBalance(DEMO_ACCOUNTS.mainTrading, 'ETH', '5');
		await connectedAndCaughtUp(r, 2);
		expect(r.items()).toEqual([
			expect.objectContaining({
				event: 'balanceChanged',
				coin: 'ETH',
				free: '5',
				source: 'catchUp',
			}),
		]);
		await reconnectQuietly(sb, r, 3);
		expect(r.executions).toHaveLength(1);
	});

	it('the marker lasts across a restart; a state written before it, with no balance, takes the baseline as before', async () => {
		const sb = sandbox();
		emptyBalances(sb);
		const first = runner({ parameters: BALANCES });
		await first.activate();
		await connectedAndCaughtUp(first, 1);
		await first.deactivate();
		sb.setBalance(DEMO_ACCOUNTS.mainTrading, 'SOL', '3');
		const second = runner({ parameters: BALANCES, staticData: first.saved });
		await second.activate();
		await connectedAndCaughtUp(second, 2);
		expect(summary(second, 'coin')).toEqual(['SOL catchUp']);
		await second.deactivate();

		const older = structuredClone(first.saved ?? {}) as Record<string, { realTime: LiveState }>;
		for (const node of Object.values(older)) delete node.realTime.balancesTaken;
		const third = runner({ parameters: BALANCES, staticData: older });
		await third.activate();
		await connectedAndCaughtUp(third, 3);
		expect(third.executions).toEqual([]);
		expect(liveState(third)).toMatchObject({ balances: { SOL: '3|0' }, balancesTaken: true });
	});
});
