/**
 * Child process of bench 3 (History Return All): runs the node's Return All against a sandbox
 * the parent started and seeded, and measures this process's heap only (the sandbox, its 100,000
 * records and its response strings live in the parent). Started with --expose-gc.
 *
 * Baseline: after a warm-up run (modules loaded, code compiled) and two full GCs.
 * Peak: the highest heapUsed seen by a 1 ms sampler during the run plus one sample right after
 *       it, before any forced GC, i.e. live data and not-yet-collected garbage alike.
 * Retained: heapUsed after two full GCs with the run's output still referenced.
 * JSON size: bytes of JSON.stringify of the records the node returned.
 * Prints one line `RESULT {json}` on stdout.
 */
import './preload';

import type { INodeExecutionData } from 'n8n-workflow';

import { runNode } from './nodeRun';

const gc = (globalThis as { gc?: () => void }).gc;

async function main(): Promise<void> {
	if (gc === undefined) throw new Error('run with --expose-gc');
	const sandbox = { baseUrl: String(process.env.BENCH_BASE_URL) };
	const startTime = Number(process.env.BENCH_START);
	const endTime = Number(process.env.BENCH_END);
	const parameters = (start: number, end: number) => ({
		resource: 'account',
		operation: 'getHistory',
		flowType: 32,
		returnAll: true,
		startTime: new Date(start).toISOString(),
		endTime: new Date(end).toISOString(),
	});

	// Warm-up: a Return All over the newest few hours (a few pages), then settle the heap.
	const warm = await runNode(
		sandbox,
		parameters(endTime - 4 * 3_600_000, endTime),
		undefined,
		'warm-up',
	);
	if (warm.error) throw warm.error;
	gc();
	gc();
	const baseline = process.memoryUsage();

	let peakHeap = baseline.heapUsed;
	let peakRss = baseline.rss;
	let samples = 0;
	const sample = () => {
		const usage = process.memoryUsage();
		samples++;
		if (usage.heapUsed > peakHeap) peakHeap = usage.heapUsed;
		if (usage.rss > peakRss) peakRss = usage.rss;
	};
	const sampler = setInterval(sample, 1);
	const started = process.hrtime.bigint();
	const run = await runNode(sandbox, parameters(startTime, endTime), undefined, 'return-all');
	const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
	sample();
	clearInterval(sampler);
	if (run.error) throw run.error;

	gc();
	gc();
	const retained = process.memoryUsage().heapUsed;
	const items: INodeExecutionData[] = run.items;
	const records = items.map((item) => item.json);
	const jsonBytes = Buffer.byteLength(JSON.stringify(records));
	const ids = new Set(records.map((record) => String(record.id)));

	process.stdout.write(
		`RESULT ${JSON.stringify({
			wallMs,
			records: records.length,
			uniqueIds: ids.size,
			jsonBytes,
			peakHeapGrowth: peakHeap - baseline.heapUsed,
			retainedHeapGrowth: retained - baseline.heapUsed,
			peakRssGrowth: peakRss - baseline.rss,
			samples,
		})}\n`,
	);
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
});
