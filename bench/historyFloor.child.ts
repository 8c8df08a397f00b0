/**
 * Child process of bench 3, for comparison: the memory floor of holding 100,000 records. A bare
 * client (bench/bareClient.ts) walks the same history the same way (500 per page, end bound moved
 * down to the oldest `created`, ids de-duplicated) and keeps the parsed records; then the records
 * are wrapped as n8n items ({ json, pairedItem }). Retained heap after GC, over the same baseline
 * as the node's child. Prints one line `RESULT {json}`.
 */
import { BareClient } from './bareClient';

const gc = (globalThis as { gc?: () => void }).gc;
const HISTORY = '/api/v1/account/balanceFlow';

async function main(): Promise<void> {
	if (gc === undefined) throw new Error('run with --expose-gc');
	const settle = () => {
		for (let round = 0; round < 4; round++) gc();
	};
	const client = new BareClient({
		apiKey: String(process.env.BENCH_API_KEY),
		secret: String(process.env.BENCH_SECRET),
		baseUrl: String(process.env.BENCH_BASE_URL),
	});
	const startTime = String(process.env.BENCH_START);
	const walk = async (start: string, end: number) => {
		const seen = new Set<string>();
		const records: Array<Record<string, unknown>> = [];
		let endTime = end;
		for (;;) {
			const response = await client.signed('GET', HISTORY, [
				['startTime', start],
				['endTime', String(endTime)],
				['limit', '500'],
				['flowType', 32],
			]);
			const page = response.body as Array<Record<string, unknown>>;
			for (const record of page) {
				if (seen.has(String(record.id))) continue;
				seen.add(String(record.id));
				records.push(record);
			}
			if (page.length < 500) return records;
			endTime = Math.min(...page.map((record) => Number(record.created)));
		}
	};
	const end = Number(process.env.BENCH_END);
	await walk(String(end - 4 * 3_600_000), end);
	settle();
	const baseline = process.memoryUsage().heapUsed;
	const records = await walk(startTime, end);
	settle();
	const parsed = process.memoryUsage().heapUsed - baseline;
	const items = records.map((json) => ({ json, pairedItem: { item: 0 } }));
	settle();
	const wrapped = process.memoryUsage().heapUsed - baseline;
	client.close();
	process.stdout.write(`RESULT ${JSON.stringify({ records: items.length, parsed, wrapped })}\n`);
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
});
