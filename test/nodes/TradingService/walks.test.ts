import { Session } from 'node:inspector/promises';
import { relative, resolve } from 'node:path';

import { DEMO_ACCOUNTS } from '../../../sandbox';
import { runTradingService, type NodeRunOptions } from '../../../tools/harness/node';
import { TradingServiceApi } from '../../../credentials/TradingServiceApi.credentials';
import { TradingService } from '../../../nodes/TradingService/TradingService.node';
import { RealTimeRunner, installWebSocketGlobal } from '../../../tools/harness/realTime';
import { triggerRunner } from '../../../tools/harness/trigger';
import { clearProcessCaches, useSandbox } from '../../support/sandbox';

// The walks of docs/architecture.md, counted from the code that runs: the product files in which
// a function is called while the node runs one item against the sandbox, through n8n-core's real
// executor. Building the node's description is not part of a walk (n8n does it once, at load), so
// functions that run when the node and the credential are only built are left out. A file of data
// alone (constants.ts, the endpoint declarations) has no function that runs, and is not counted.

const ROOT = resolve(__dirname, '../../..');
const PRODUCT = [`${ROOT}/nodes/`, `${ROOT}/credentials/`];

interface ScriptCoverage {
	url: string;
	functions: Array<{
		functionName: string;
		ranges: Array<{ startOffset: number; endOffset: number; count: number }>;
	}>;
}

const session = new Session();

/** The product functions called while `work` runs, as "file:start-end" keys, by file. */
async function calledDuring(work: () => Promise<unknown>): Promise<Map<string, Set<string>>> {
	// Taking the coverage resets the counters: what the next take reports ran in between.
	await session.post('Profiler.takePreciseCoverage');
	await work();
	const { result } = (await session.post('Profiler.takePreciseCoverage')) as {
		result: ScriptCoverage[];
	};
	const called = new Map<string, Set<string>>();
	for (const script of result) {
		const path = script.url.replace(/^file:\/\//, '');
		if (!PRODUCT.some((folder) => path.startsWith(folder))) continue;
		// The module's top level (run when it is loaded) is the function that starts at offset 0.
		for (const fn of script.functions) {
			const [range] = fn.ranges;
			if (range.count === 0 || range.startOffset === 0) continue;
			const file = relative(ROOT, path);
			const keys = called.get(file) ?? new Set<string>();
			keys.add(`${fn.functionName}:${range.startOffset}-${range.endOffset}`);
			called.set(file, keys);
		}
	}
	return called;
}

let building = new Map<string, Set<string>>();

beforeAll(async () => {
	installWebSocketGlobal();
	session.connect();
	await session.post('Profiler.enable');
	await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
	building = await calledDuring(async () => {
		new TradingService();
		new TradingServiceApi();
	});
});

afterAll(async () => {
	await session.post('Profiler.stopPreciseCoverage');
	session.disconnect();
});

const sandbox = useSandbox();

/** The product files a function of which runs while `work` runs, building aside. */
async function walkOf(work: () => Promise<unknown>): Promise<string[]> {
	const called = await calledDuring(work);
	const files = [...called.entries()]
		.filter(([file, functions]) =>
			[...functions].some((fn) => !(building.get(file)?.has(fn) ?? false)),
		)
		.map(([file]) => file)
		.sort();
	const walk = expect.getState().currentTestName;
	if (walk !== undefined)
		process.stdout.write(`${walk}: ${files.length} files\n  ${files.join('\n  ')}\n`);
	return files;
}

/** One node run: a first run (beforeAll) loaded every module; the caches are cleared as before every
 * test (test/support/sandbox.ts), so the counted run reads what a first run of the process reads. */
async function walk(options: NodeRunOptions): Promise<string[]> {
	return await walkOf(async () => {
		const run = await runTradingService(sandbox(), options);
		expect(run.error).toBeUndefined();
	});
}

const createManyAutoMapped: NodeRunOptions = {
	node: { typeVersion: 2 },
	parameters: { resource: 'order', operation: 'createMany', inputMode: 'autoMap', options: {} },
	inputItems: [
		{ json: { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '100.5', quantity: '0.001' } },
	],
};
const getPrice: NodeRunOptions = {
	node: { typeVersion: 2 },
	parameters: { resource: 'market', operation: 'getPrice', symbol: 'BTCUSDT' },
};
const transfer: NodeRunOptions = {
	node: { typeVersion: 2 },
	parameters: {
		resource: 'account',
		operation: 'transferAsset',
		fromAccountId: DEMO_ACCOUNTS.mainTrading,
		toAccountId: DEMO_ACCOUNTS.subTrading,
		coin: 'USDT',
		quantity: '1.5',
	},
};

const futuresFundingRate: NodeRunOptions = {
	node: { typeVersion: 2 },
	parameters: {
		resource: 'futures',
		operation: 'getFundingRate',
		symbol: { __rl: true, mode: 'list', value: 'BTCUSDT-PERPETUAL' },
	},
};

/** A resting BUY of the master key, filled later by the sandbox: its order ID. */
function restingOrder(): string {
	const sb = sandbox();
	return sb.seedOpenOrder({
		symbol: 'BTCUSDT',
		side: 'BUY',
		price: '100',
		quantity: '0.01',
		time: sb.now(),
	}).orderId;
}

/** The polling Order Filled: after the first activation's poll, the poll that emits one fill. */
async function pollingOrderFilled(): Promise<string[]> {
	const trigger = triggerRunner(sandbox(), { parameters: { event: 'orderFilled' } });
	expect((await trigger.poll()).error).toBeUndefined();
	sandbox().fillOrder(restingOrder());
	// What useSandbox clears before every test: a first read of the process, again.
	clearProcessCaches();
	return await walkOf(async () => {
		const outcome = await trigger.poll();
		expect(outcome.error).toBeUndefined();
		expect(outcome.items).toHaveLength(1);
	});
}

/** The real-time Order Filled: the activation, and one fill pushed on the stream, emitted. */
async function realTimeOrderFilled(): Promise<string[]> {
	const sb = sandbox();
	const orderId = restingOrder();
	const trigger = new RealTimeRunner(sb);
	try {
		return await walkOf(async () => {
			await trigger.activate();
			await trigger.waitFor(() => sb.stream.stats().connections === 1, 10_000, 'the connection');
			await new Promise((resolve) => setTimeout(resolve, 300));
			sb.fillOrder(orderId);
			await trigger.waitFor(
				() => trigger.items().some((item) => item.status === 'FILLED'),
				10_000,
				'the fill',
			);
		});
	} finally {
		await trigger.deactivate();
	}
}

// The limits are the counts docs/architecture.md records: a change that lengthens a road fails here
// and must say why in the doc.
describe('the walks from a node run to the wire (docs/architecture.md)', () => {
	beforeAll(async () => {
		for (const options of [createManyAutoMapped, getPrice, transfer, futuresFundingRate])
			await runTradingService(sandbox(), options);
		await pollingOrderFilled();
		await realTimeOrderFilled();
	});

	it('Create Many, auto-mapped, one order: at most 27 files', async () => {
		const files = await walk(createManyAutoMapped);
		expect(files).toContain('credentials/signing.ts');
		expect(files.length).toBeLessThanOrEqual(27);
	});

	it('Market › Get Price: at most 15 files', async () => {
		const files = await walk(getPrice);
		expect(files).toContain('nodes/TradingService/market/getPrice.operation.ts');
		// A read never opens the write side.
		expect(files.filter((file) => file.startsWith('nodes/TradingService/writes/'))).toEqual([]);
		expect(files.length).toBeLessThanOrEqual(15);
	});

	it('Transfer: at most 20 files', async () => {
		const files = await walk(transfer);
		expect(files).toContain('credentials/signing.ts');
		expect(files.length).toBeLessThanOrEqual(20);
	});

	it('Futures › Get Funding Rate: at most 14 files', async () => {
		const files = await walk(futuresFundingRate);
		expect(files).toContain('nodes/TradingService/futures/getFundingRate.operation.ts');
		expect(files.filter((file) => file.startsWith('nodes/TradingService/writes/'))).toEqual([]);
		expect(files.length).toBeLessThanOrEqual(14);
	});

	it('the polling trigger, Order Filled, one fill: at most 18 files', async () => {
		const files = await pollingOrderFilled();
		expect(files).toContain('nodes/TradingService/TradingServiceTrigger.node.ts');
		expect(files.length).toBeLessThanOrEqual(18);
	});

	it('the real-time trigger, Order Filled, activation and one fill: at most 22 files', async () => {
		installWebSocketGlobal();
		const files = await realTimeOrderFilled();
		expect(files).toContain('nodes/TradingService/TradingServiceRealTimeTrigger.node.ts');
		expect(files.length).toBeLessThanOrEqual(22);
	});
});
