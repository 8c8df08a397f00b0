/**
 * The sandbox's HTTP listener: listen and stop (with the other host redirect faults point to),
 * open sockets, request bodies read up to 1 MiB before the pipeline (pipeline.ts) answers, and
 * WebSocket upgrades handed to the user data stream (stream/hub.ts).
 * State and the test-control API: control.ts.
 */
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

import { SandboxControl } from './control';
import { RequestPipeline } from './pipeline';
import type { Sandbox, SandboxOptions } from './types';

const MAX_BODY_BYTES = 1024 * 1024;

export class SandboxServer extends SandboxControl implements Sandbox {
	private readonly server: http.Server;
	private readonly sockets = new Set<Socket>();
	private readonly pipeline: RequestPipeline;

	constructor(options: SandboxOptions = {}) {
		super(options);
		this.pipeline = new RequestPipeline({
			ledger: this.ledger,
			faults: this.faults,
			deferred: this.deferred,
			now: () => this.now(),
			baseUrl: () => this.baseUrl,
			otherHostUrl: () => this.otherHost.url,
			services: () => this.services(),
			requestLimiter: this.requestLimiter,
		});
		this.server = http.createServer((req, res) => this.onRequest(req, res));
		// the user data stream's WebSockets share the listener (stream/hub.ts)
		this.server.on('upgrade', (req, socket, head: Buffer) =>
			this.userStream.handleUpgrade(req, socket, head),
		);
		this.server.on('connection', (s: Socket) => {
			this.sockets.add(s);
			s.on('close', () => this.sockets.delete(s));
		});
	}

	async listen(): Promise<void> {
		const host = this.options.host ?? '127.0.0.1';
		await this.otherHost.listen(host);
		await new Promise<void>((resolve, reject) => {
			this.server.once('error', reject);
			this.server.listen(this.options.port ?? 0, host, () => {
				this.server.off('error', reject);
				const addr = this.server.address() as AddressInfo;
				const h = host.includes(':') ? `[${host}]` : host;
				this.baseUrl = `http://${h}:${addr.port}`;
				resolve();
			});
		});
	}

	async stop(): Promise<void> {
		this.pipeline.stop();
		this.deferred.clear();
		this.engine.futures.stop();
		this.userStream.stop();
		await new Promise<void>((resolve) => {
			this.server.close(() => resolve());
			for (const s of this.sockets) s.destroy();
			this.sockets.clear();
		});
		await this.otherHost.stop();
	}

	private onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on('data', (c: Buffer) => {
			size += c.length;
			if (size <= MAX_BODY_BYTES) chunks.push(c);
		});
		req.on('end', () => {
			const body = Buffer.concat(chunks).toString('utf8');
			this.pipeline.handle(req, res, body, size > MAX_BODY_BYTES).catch(() => req.socket.destroy());
		});
		req.on('error', () => undefined);
	}
}
