import { Session } from 'node:inspector/promises';
import { relative, resolve } from 'node:path';

import { DEMO_ACCOUNTS } from '../../../sandbox';
import { runTradingService, type NodeRunOptions } from '../../../tools/harness/node';
import { TradingServiceApi } from '../../../credentials/TradingServiceApi.credentials';
import { TradingService } from '../../../nodes/TradingService/TradingService.node';
import { useSandbox } from '../../support/sandbox';

// The walks of docs/architecture.md, counted from the code that runs: the product files in which
// a function is called while the node runs one item against the sandbox, through n8n-core's real
// executor. Building the node's description is not part of a walk (n8n does it once, at load), so
// functions that run when the node and the credential are only built are left out. constants.ts is
// a table with no function that runs; every walk reads its limits, so it is counted in every walk.

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
		// The first function of a script is the module itself (its top level, run when loaded).
		for (const fn of script.functions.slice(1)) {
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

/** The product files a function of which runs for one node run, building aside. */
async function walk(options: NodeRunOptions): Promise<string[]> {
	// A first run loads every module and fills per-process caches; the counted run follows, with
	// the caches cleared as before every test (test/support/sandbox.ts), so it reads what a first
	// run of the process reads.
	const called = await calledDuring(async () => {
		const run = await runTradingService(sandbox(), options);
		expect(run.error).toBeUndefined();
	});
	const files = [...called.entries()]
		.filter(([file, functions]) =>
			[...functions].some((fn) => !(building.get(file)?.has(fn) ?? false)),
		)
		.map(([file]) => file)
		.concat('nodes/TradingService/constants.ts')
		.sort();
	process.stdout.write(
		`${expect.getState().currentTestName}: ${files.length} files\n  ${files.join('\n  ')}\n`,
	);
	return files;
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

// The limits are the counts docs/architecture.md records: a change that lengthens a road fails here
// and must say why in the doc.
describe('the walks from a node run to the wire (docs/architecture.md)', () => {
	beforeAll(async () => {
		for (const options of [createManyAutoMapped, getPrice, transfer])
			await runTradingService(sandbox(), options);
	});

	it('Create Many, auto-mapped, one order: at most 33 files', async () => {
		const files = await walk(createManyAutoMapped);
		expect(files).toContain('credentials/signing.ts');
		expect(files.length).toBeLessThanOrEqual(33);
	});

	it('Market › Get Price: at most 18 files', async () => {
		const files = await walk(getPrice);
		expect(files).toContain('nodes/TradingService/market/getPrice.operation.ts');
		expect(files.length).toBeLessThanOrEqual(18);
	});

	it('Transfer: at most 25 files', async () => {
		const files = await walk(transfer);
		expect(files).toContain('credentials/signing.ts');
		expect(files.length).toBeLessThanOrEqual(25);
	});
});
