/**
 * Child processes of the test tooling: n8n (CLI commands, servers, workers), npm, tar, the
 * installer, and the queue suite's system commands. Every child is started by spawnChild():
 * in its own process group (n8n starts a task-runner child, so the group is what gets killed),
 * tracked until it exits, and killed if this process exits first.
 *
 * Nothing here knows n8n; the n8n modules pass the runtime's Node binary and n8n's entry point.
 */
import { spawn, type ChildProcess } from 'child_process';
import * as net from 'net';

const liveChildren = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
	if (exitHookInstalled) return;
	exitHookInstalled = true;
	// Never leave n8n (or its task runner) running after this process. The children run in their
	// own process groups (so that the task runner can be killed with them), which also means a
	// terminal's Ctrl+C does not reach them: forward SIGINT/SIGTERM, then die as we would have.
	process.once('exit', () => {
		for (const child of liveChildren) killGroup(child, 'SIGKILL');
	});
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		const handler = () => {
			for (const child of liveChildren) killGroup(child, 'SIGTERM');
			if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
		};
		// Only when nobody else handles the signal: do not change a host's (jest's) own handling.
		if (process.listenerCount(signal) === 0) process.once(signal, handler);
	}
}

/**
 * Runs under Node as the leader of a process group: spawns the Node script in argv after `--`
 * and stops it when our stdin closes, i.e. when the process that started it dies, even by
 * SIGKILL; then kills the whole group (n8n's task runner too). Otherwise it just relays signals
 * and the exit status.
 */
const WATCHDOG_JS = `
const { spawn } = require('child_process');
const child = spawn(process.execPath, process.argv.slice(1), { stdio: ['ignore', 'inherit', 'inherit'] });
let orphaned = false;
const stopChild = (signal) => { try { child.kill(signal); } catch {} };
process.stdin.on('end', () => {
	orphaned = true;
	stopChild('SIGTERM');
	setTimeout(() => { try { process.kill(0, 'SIGKILL'); } catch {} }, 5000);
});
process.stdin.on('error', () => {});
process.stdin.resume();
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => stopChild(signal));
child.on('error', (err) => { console.error('watchdog: ' + err.message); process.exit(127); });
child.on('exit', (code, signal) => {
	if (orphaned) { try { process.kill(0, 'SIGKILL'); } catch {} }
	if (signal) { process.removeAllListeners(signal); process.kill(process.pid, signal); }
	process.exit(code === null ? 1 : code);
});
`;

export interface SpawnChildOptions {
	env: NodeJS.ProcessEnv;
	cwd?: string;
	/**
	 * `command` is a Node binary and `args` a script with its arguments: run the script under the
	 * watchdog above, so that it dies with this process even when this one is SIGKILLed.
	 */
	underWatchdog?: boolean;
}

/**
 * The one place that starts child processes: `command args` in a new process group with stdout
 * and stderr piped, tracked until it exits (the exit hook kills what is still running).
 */
export function spawnChild(
	command: string,
	args: string[],
	options: SpawnChildOptions,
): ChildProcess {
	installExitHook();
	const child = spawn(command, options.underWatchdog ? ['-e', WATCHDOG_JS, '--', ...args] : args, {
		env: options.env,
		cwd: options.cwd,
		stdio: [options.underWatchdog ? 'pipe' : 'ignore', 'pipe', 'pipe'],
		detached: true,
	});
	// The watchdog's stdin stays open (never written): it closes when this process dies.
	if (options.underWatchdog) child.stdin!.on('error', () => {});
	if (options.underWatchdog) watchdogs.add(child);
	liveChildren.add(child);
	child.once('exit', () => liveChildren.delete(child));
	child.once('error', () => liveChildren.delete(child));
	return child;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
	try {
		process.kill(-child.pid, signal); // the whole process group (detached: true)
	} catch {
		try {
			child.kill(signal);
		} catch {
			/* already gone */
		}
	}
}

/** SIGKILL whatever is left in the group of a child whose leader has exited. */
function killLeftovers(child: ChildProcess): void {
	if (child.pid === undefined) return;
	try {
		process.kill(-child.pid, 'SIGKILL');
	} catch {
		/* group already empty */
	}
}

/** Children run under the watchdog, which relays signals to the program it runs. */
const watchdogs = new WeakSet<ChildProcess>();

/**
 * Stop a child: SIGTERM (to a watchdog alone, which relays it: n8n takes only its first SIGTERM
 * as a graceful shutdown, and a second one from the group would kill it before its triggers
 * close; to anything else, its process group), SIGKILL to the group after `graceMs`; resolves
 * when it exited.
 */
async function terminate(child: ChildProcess, graceMs = 10_000): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) {
		killGroup(child, 'SIGKILL'); // stray grandchildren, if any
		return;
	}
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	if (watchdogs.has(child)) child.kill('SIGTERM');
	else killGroup(child, 'SIGTERM');
	const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
	await exited;
	clearTimeout(timer);
	// Grandchildren (task runner) may outlive the leader: make sure the group is gone.
	killLeftovers(child);
}

/** Synchronously kill every child process still running (for emergency cleanup hooks). */
export function killAllChildren(): void {
	for (const child of liveChildren) killGroup(child, 'SIGKILL');
}

export interface ProcessResult {
	exitCode: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
	timedOut: boolean;
	durationMs: number;
}

export interface RunProcessOptions extends SpawnChildOptions {
	timeoutMs: number;
	onStdout?: (chunk: string) => void;
	onStderr?: (chunk: string) => void;
}

/** Run a command to its end: collect its output, kill its process group on timeout. */
export function runProcess(
	command: string,
	args: string[],
	options: RunProcessOptions,
): Promise<ProcessResult> {
	const started = Date.now();
	return new Promise((resolve, reject) => {
		const child = spawnChild(command, args, options);
		let stdout = '';
		let stderr = '';
		let timedOut = false;
		child.stdout!.setEncoding('utf8').on('data', (c: string) => {
			stdout += c;
			options.onStdout?.(c);
		});
		child.stderr!.setEncoding('utf8').on('data', (c: string) => {
			stderr += c;
			options.onStderr?.(c);
		});
		const timer = setTimeout(() => {
			timedOut = true;
			void terminate(child, 5_000);
		}, options.timeoutMs);
		child.once('error', (err) => {
			clearTimeout(timer);
			reject(new Error(`cannot run ${command}: ${err.message}`));
		});
		child.once('exit', () => {
			// Grandchildren holding our pipes would delay 'close' forever: clear the group soon.
			setTimeout(() => killLeftovers(child), 3_000).unref();
		});
		child.once('close', (exitCode, signal) => {
			clearTimeout(timer);
			// A leader that exited may leave grandchildren behind in its group.
			killLeftovers(child);
			resolve({ exitCode, signal, stdout, stderr, timedOut, durationMs: Date.now() - started });
		});
	});
}

/** A long-running child (a server, a worker) started by startProcess. */
export interface RunningProcess {
	/** Pid of the process-group leader (-1 if it could not be started). */
	readonly pid: number;
	/** True once it has exited. */
	readonly exited: boolean;
	readonly exitCode: number | null;
	readonly signalCode: NodeJS.Signals | null;
	/** Everything it printed so far (stdout and stderr interleaved). */
	logs(): string;
	/** SIGTERM to its process group, SIGKILL after `graceMs` (default 10 s); resolves once it exited. Idempotent. */
	stop(graceMs?: number): Promise<void>;
}

/** Start a long-running command; its readiness is the caller's to check. */
export function startProcess(
	command: string,
	args: string[],
	options: SpawnChildOptions & { onOutput?: (chunk: string) => void },
): RunningProcess {
	const child = spawnChild(command, args, options);
	let output = '';
	const onData = (c: string) => {
		output += c;
		options.onOutput?.(c);
	};
	child.stdout!.setEncoding('utf8').on('data', onData);
	child.stderr!.setEncoding('utf8').on('data', onData);
	let exited = false;
	child.once('exit', () => {
		exited = true;
	});
	child.once('error', (err) => {
		output += `\n[spawn error] ${err.message}\n`;
	});
	let stopping: Promise<void> | undefined;
	return {
		get pid() {
			return child.pid ?? -1;
		},
		get exited() {
			return exited;
		},
		get exitCode() {
			return child.exitCode;
		},
		get signalCode() {
			return child.signalCode;
		},
		logs: () => output,
		stop(graceMs = 10_000) {
			stopping ??= terminate(child, graceMs).then(() => {
				liveChildren.delete(child);
			});
			return stopping;
		},
	};
}

/** The last `lines` lines of a process's output, for error messages. */
export function tail(text: string, lines: number): string {
	return text.split('\n').slice(-lines).join('\n');
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export function getFreePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			server.close(() => (port ? resolve(port) : reject(new Error('no free port'))));
		});
	});
}
