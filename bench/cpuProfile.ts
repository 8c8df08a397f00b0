/**
 * Reads a V8 .cpuprofile (node --cpu-prof) of an n8n process and says where the time of the
 * package's node runs went: self time by function and by origin (this package, n8n-workflow,
 * n8n-core, other modules, Node internals, GC), and, for the package's own functions, their
 * inclusive time and the n8n functions they call, per item.
 *
 * Windows: a measured run is the span from the first to the last sample with a frame of the
 * package on the stack; spans further apart than `gapMs` are separate runs. The last `runs` of
 * them are analysed (earlier ones are warm-ups, or n8n loading the package at start).
 */

export interface CpuProfile {
	nodes: Array<{
		id: number;
		callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
		children?: number[];
	}>;
	startTime: number;
	endTime: number;
	samples: number[];
	timeDeltas: number[];
}

export interface ProfileOptions {
	/** A substring of the package's file URLs. */
	packageMarker: string;
	items: number;
	runs: number;
	nodeTimesMs: number[];
	gapMs?: number;
}

export interface FunctionTime {
	name: string;
	origin: string;
	ms: number;
	perItemUs: number;
}

export interface ProfileSummary {
	windows: number;
	windowMs: number[];
	sampledMs: number;
	nodeTimesMs: number[];
	byOrigin: FunctionTime[];
	topSelf: FunctionTime[];
	packageInclusive: FunctionTime[];
	packageCalls: FunctionTime[];
	profileFile?: string;
}

type Frame = CpuProfile['nodes'][number]['callFrame'];

export function originOf(frame: Frame, packageMarker: string): string {
	const { url, functionName } = frame;
	if (url.includes(packageMarker)) return 'this package';
	if (functionName === '(garbage collector)') return 'GC';
	if (functionName === '(program)' || functionName === '(idle)' || functionName === '(root)')
		return functionName;
	if (url === '') return 'native (V8 builtins, isolated-vm, C++)';
	if (url.startsWith('node:')) return 'Node.js internals';
	const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
	const module = match ? match[1] : 'other';
	// node_modules nested under n8n's own packages: name the innermost.
	const inner = url.lastIndexOf('node_modules/');
	if (inner !== -1) {
		const innerMatch = /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url.slice(inner));
		if (innerMatch) return innerMatch[1];
	}
	return module;
}

function frameName(frame: Frame): string {
	const file = frame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\//, '');
	return `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
}

export function analyseCpuProfile(profile: CpuProfile, options: ProfileOptions): ProfileSummary {
	const gapUs = (options.gapMs ?? 700) * 1000;
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const parent = new Map<number, number>();
	for (const node of profile.nodes)
		for (const child of node.children ?? []) parent.set(child, node.id);
	const stackCache = new Map<number, number[]>();
	const stackOf = (id: number): number[] => {
		const cached = stackCache.get(id);
		if (cached) return cached;
		const up = parent.get(id);
		const stack = up === undefined ? [id] : [...stackOf(up), id];
		stackCache.set(id, stack);
		return stack;
	};
	const isPackage = (id: number) => byId.get(id)!.callFrame.url.includes(options.packageMarker);

	// Sample times (µs) and durations (the gap to the next sample).
	const times: number[] = [];
	let clock = profile.startTime;
	for (const delta of profile.timeDeltas) {
		clock += delta;
		times.push(clock);
	}
	const duration = (index: number) =>
		index + 1 < times.length ? times[index + 1] - times[index] : 0;

	// Windows of package activity.
	const windows: Array<[number, number]> = [];
	for (let index = 0; index < profile.samples.length; index++) {
		if (!stackOf(profile.samples[index]).some(isPackage)) continue;
		const last = windows[windows.length - 1];
		if (last !== undefined && times[index] - last[1] <= gapUs) last[1] = times[index];
		else windows.push([times[index], times[index]]);
	}
	const analysed = windows.slice(-options.runs);
	const inWindow = (time: number) => analysed.some(([from, to]) => time >= from && time <= to);

	const self = new Map<string, { origin: string; us: number }>();
	const origins = new Map<string, number>();
	const inclusive = new Map<string, number>();
	const calls = new Map<string, number>();
	let sampledUs = 0;
	for (let index = 0; index < profile.samples.length; index++) {
		if (!inWindow(times[index])) continue;
		const us = duration(index);
		sampledUs += us;
		const stack = stackOf(profile.samples[index]);
		const leaf = byId.get(stack[stack.length - 1])!.callFrame;
		const origin = originOf(leaf, options.packageMarker);
		origins.set(origin, (origins.get(origin) ?? 0) + us);
		const key = frameName(leaf);
		const entry = self.get(key) ?? { origin, us: 0 };
		entry.us += us;
		self.set(key, entry);
		// Inclusive time of the package's functions (each once per sample).
		const seen = new Set<string>();
		for (const id of stack) {
			if (!isPackage(id)) continue;
			const name = frameName(byId.get(id)!.callFrame);
			if (seen.has(name)) continue;
			seen.add(name);
			inclusive.set(name, (inclusive.get(name) ?? 0) + us);
		}
		// What the deepest package frame called outside the package.
		for (let depth = stack.length - 2; depth >= 0; depth--) {
			if (isPackage(stack[depth]) && !isPackage(stack[depth + 1])) {
				const caller = byId.get(stack[depth])!.callFrame.functionName || '(anonymous)';
				const callee = byId.get(stack[depth + 1])!.callFrame;
				const name = `${caller} → ${callee.functionName || '(anonymous)'} (${originOf(callee, options.packageMarker)})`;
				calls.set(name, (calls.get(name) ?? 0) + us);
				break;
			}
			if (isPackage(stack[depth + 1])) break;
		}
	}
	const perItem = (us: number) => us / options.runs / options.items;
	const toRows = (
		entries: Iterable<[string, number]>,
		origin: (name: string) => string,
	): FunctionTime[] =>
		[...entries]
			.map(([name, us]) => ({
				name,
				origin: origin(name),
				ms: us / 1000 / options.runs,
				perItemUs: perItem(us),
			}))
			.sort((a, b) => b.ms - a.ms);
	return {
		windows: windows.length,
		windowMs: analysed.map(([from, to]) => (to - from) / 1000),
		sampledMs: sampledUs / 1000 / options.runs,
		nodeTimesMs: options.nodeTimesMs,
		byOrigin: toRows(origins, (name) => name),
		topSelf: toRows(
			[...self].map(([name, entry]) => [name, entry.us]),
			(name) => self.get(name)!.origin,
		).slice(0, 25),
		packageInclusive: toRows(inclusive, () => 'this package').slice(0, 25),
		packageCalls: toRows(calls, () => '').slice(0, 25),
	};
}

/** The summary as markdown tables (ms are per profiled run). */
export function profileMarkdown(summary: ProfileSummary): string {
	const table = (title: string, rows: FunctionTime[], withOrigin: boolean) => [
		`${title}`,
		'',
		withOrigin
			? '| Function | Origin | ms per run | µs per item |'
			: '| Function | ms per run | µs per item |',
		withOrigin ? '|---|---|---|---|' : '|---|---|---|',
		...rows.map((row) =>
			withOrigin
				? `| \`${row.name}\` | ${row.origin} | ${row.ms.toFixed(1)} | ${row.perItemUs.toFixed(1)} |`
				: `| \`${row.name}\` | ${row.ms.toFixed(1)} | ${row.perItemUs.toFixed(1)} |`,
		),
		'',
	];
	return [
		`Profiled runs: ${summary.windowMs.length} (node executionTime ${summary.nodeTimesMs.map((ms) => `${ms} ms`).join(', ')}); ` +
			`package-activity windows ${summary.windowMs.map((ms) => `${ms.toFixed(0)} ms`).join(', ')}; samples in them: ${summary.sampledMs.toFixed(0)} ms per run.`,
		'',
		...table(
			'Self time by origin, inside the windows:',
			summary.byOrigin.map((row) => ({ ...row, name: row.name })),
			false,
		),
		...table('Top self time, inside the windows:', summary.topSelf.slice(0, 20), true),
		...table(
			"The package's functions, inclusive time (their callees included):",
			summary.packageInclusive.slice(0, 15),
			false,
		),
		...table(
			'What the package calls outside itself (deepest package frame → callee), inclusive:',
			summary.packageCalls.slice(0, 15),
			false,
		),
	].join('\n');
}
