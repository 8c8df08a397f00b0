/** Small helpers for the benchmarks: medians, timing, table printing. */

export function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Wall time, and CPU time of this process (user + system: client and in-process sandbox alike). */
export async function timed<T>(
	work: () => Promise<T>,
): Promise<{ ms: number; cpuMs: number; value: T }> {
	const start = process.hrtime.bigint();
	const cpu = process.cpuUsage();
	const value = await work();
	const used = process.cpuUsage(cpu);
	return {
		ms: Number(process.hrtime.bigint() - start) / 1e6,
		cpuMs: (used.user + used.system) / 1000,
		value,
	};
}

export function fmtMs(ms: number): string {
	return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`;
}

export function fmtBytes(bytes: number): string {
	const mib = bytes / (1024 * 1024);
	return `${mib.toFixed(1)} MiB`;
}

export interface Row {
	benchmark: string;
	measure: string;
	value: string;
	target: string;
	verdict: 'met' | 'NOT MET' | 'info' | 'TODO';
}

export function printTable(
	rows: Row[],
	write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): void {
	const headers = ['Benchmark', 'Measure', 'Value', 'Target', 'Verdict'];
	const cells = rows.map((row) => [row.benchmark, row.measure, row.value, row.target, row.verdict]);
	const widths = headers.map((header, column) =>
		Math.max(header.length, ...cells.map((cell) => cell[column].length)),
	);
	const line = (values: string[]) =>
		`| ${values.map((value, column) => value.padEnd(widths[column])).join(' | ')} |`;
	write(line(headers));
	write(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
	for (const cell of cells) write(line(cell));
}
