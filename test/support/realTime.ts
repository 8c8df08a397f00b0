/**
 * The one set-up of the real-time trigger's jest suites: the sandbox (useSandbox), n8n's
 * WebSocket global, runners made through `runner()` and deactivated after each test, the stream's
 * timings as the product sets them at the start of each test, and `connected()`, which waits for
 * the stream's connection.
 *
 *   const { sandbox, runner, connected } = useRealTimeRunners({ settleMs: 200 });
 *   it('…', async () => {
 *     const r = runner({ parameters: { events: ['orderFilled'] } });
 *     await r.activate();
 *     await connected(r);
 *   });
 */
import { STREAM_TIMINGS } from '../../nodes/TradingService/stream/activation';
import type { Sandbox, SandboxOptions } from '../../sandbox';
import {
	RealTimeRunner,
	installWebSocketGlobal,
	type RealTimeRunnerOptions,
} from '../../tools/harness/realTime';
import { useSandbox } from './sandbox';

/**
 * The sandbox of a real-time suite unless it names its own: useSandbox's default (no weight
 * budget, no request rates, lenient symbol rules) with a stream ping every second.
 */
export const REAL_TIME_SANDBOX: SandboxOptions = {
	rateLimit: false,
	requestRates: false,
	symbolRules: 'lenient',
	streamPingIntervalMs: 1_000,
};

export interface RealTimeSuiteOptions {
	/** The sandbox's options; REAL_TIME_SANDBOX when left out. */
	sandbox?: SandboxOptions;
	/** Options every runner of the suite starts from; `runner(options)` overrides them. */
	runnerDefaults?: RealTimeRunnerOptions;
	/**
	 * How long `connected()` waits after the connection: the baseline or catch-up that follows it
	 * has finished once the state is saved. 0: it returns at the connection.
	 */
	settleMs?: number;
	/** How long `connected()` waits for the connection at most. */
	connectTimeoutMs?: number;
}

export interface RealTimeSuite {
	sandbox: () => Sandbox;
	/** A runner against the suite's sandbox, deactivated after the test. */
	runner: (options?: RealTimeRunnerOptions) => RealTimeRunner;
	/**
	 * Waits until the sandbox holds one connection and has opened `opened` in all (1: the first),
	 * then for the suite's settle time.
	 */
	connected: (r: RealTimeRunner, opened?: number) => Promise<void>;
}

export function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

export function useRealTimeRunners(options: RealTimeSuiteOptions = {}): RealTimeSuite {
	const { settleMs = 0, connectTimeoutMs = 10_000, runnerDefaults = {} } = options;
	const sandbox = useSandbox(options.sandbox ?? REAL_TIME_SANDBOX);
	// A test may shorten the stream's timings; the next starts from the product's.
	const defaultTimings = { ...STREAM_TIMINGS };
	let runners: RealTimeRunner[] = [];

	beforeEach(() => {
		installWebSocketGlobal();
		runners = [];
	});

	afterEach(async () => {
		Object.assign(STREAM_TIMINGS, defaultTimings);
		for (const made of runners) await made.deactivate().catch(() => undefined);
	});

	const runner = (runnerOptions: RealTimeRunnerOptions = {}): RealTimeRunner => {
		const made = new RealTimeRunner(sandbox(), { ...runnerDefaults, ...runnerOptions });
		runners.push(made);
		return made;
	};

	const connected = async (r: RealTimeRunner, opened = 1): Promise<void> => {
		const stats = () => sandbox().stream.stats();
		await r.waitFor(
			() => stats().connections === 1 && stats().connectionsOpened >= opened,
			connectTimeoutMs,
			`connection ${opened}`,
		);
		if (settleMs > 0) await sleep(settleMs);
	};

	return { sandbox, runner, connected };
}
