/**
 * A second, tiny listener on loopback that stands for "another host" in redirect faults. It records
 * every request it receives (method, URL, headers, body) so a test can prove that, for example, the
 * X-APIKEY header or a signed body never reached it, and answers with a reply the test can set.
 *
 * It binds 127.0.0.2 when the sandbox is on 127.0.0.1 (another host name, not just another port),
 * and falls back to the sandbox's own host where 127.0.0.2 is not available.
 */
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

import type { CaughtRequest, OtherHost, OtherHostReply } from './types';

const DEFAULT_REPLY: Required<OtherHostReply> = {
	status: 200,
	headers: { 'Content-Type': 'application/json' },
	// Looks like a successful write to a careless reader: exactly what a redirect must never produce.
	body: '{"success":true,"timestamp":1,"clientOrderId":"","orderId":"1"}',
};

export class OtherHostServer implements OtherHost {
	url = '';
	readonly requests: CaughtRequest[] = [];
	private reply: Required<OtherHostReply> = { ...DEFAULT_REPLY };
	private readonly server: http.Server;
	private readonly sockets = new Set<Socket>();

	constructor() {
		this.server = http.createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (c: Buffer) => chunks.push(c));
			req.on('end', () => {
				this.requests.push({
					method: (req.method ?? 'GET').toUpperCase(),
					url: req.url ?? '/',
					headers: { ...req.headers },
					body: Buffer.concat(chunks).toString('utf8'),
				});
				const body = this.reply.body;
				res.writeHead(this.reply.status, {
					...this.reply.headers,
					'Content-Length': String(Buffer.byteLength(body)),
				});
				res.end(body);
			});
			req.on('error', () => undefined);
		});
		this.server.on('connection', (s: Socket) => {
			this.sockets.add(s);
			s.on('close', () => this.sockets.delete(s));
		});
	}

	private bind(host: string): Promise<void> {
		return new Promise((resolve, reject) => {
			this.server.once('error', reject);
			this.server.listen(0, host, () => {
				this.server.off('error', reject);
				const addr = this.server.address() as AddressInfo;
				this.url = `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`;
				resolve();
			});
		});
	}

	async listen(sandboxHost: string): Promise<void> {
		if (sandboxHost === '127.0.0.1') {
			try {
				await this.bind('127.0.0.2');
				return;
			} catch {
				// not every system routes all of 127/8 to loopback
			}
		}
		await this.bind(sandboxHost);
	}

	stop(): Promise<void> {
		return new Promise((resolve) => {
			if (!this.server.listening) {
				resolve();
				return;
			}
			this.server.close(() => resolve());
			for (const s of this.sockets) s.destroy();
			this.sockets.clear();
		});
	}

	setReply(reply: OtherHostReply): void {
		this.reply = { ...DEFAULT_REPLY, ...reply };
	}

	clear(): void {
		this.requests.length = 0;
		this.reply = { ...DEFAULT_REPLY };
	}
}
