/**
 * One request from arrival to answer: work come due (delayed cancels, late creates) applied first,
 * the ledger entry, the UAE rate-limit rule (an address that sends within a minute of a 429 is
 * answered 418), the redirect loop's own path, the request rates per key and class (a gateway's
 * check: before any fault, authentication or weight), the fault picked for it (acting before,
 * instead of, after or long after the endpoint), latency, and the send.
 */
import type * as http from 'node:http';

import { CODES } from './codes';
import type { DeferredWork } from './deferred';
import type { FaultInjector } from './faultInjector';
import {
	CREATE_LATE_DEFAULT_MS,
	REDIRECT_LOOP_PATH,
	SEND_FAULTS,
	faultAnswer,
	phaseOf,
	type ActiveFault,
} from './faults';
import { realNow } from './realClock';
import { signedTimestampOf, type RequestRateLimiter } from './requestRates';
import { errorResp, json, type Resp } from './response';
import { dispatch, prepare } from './router';
import type { RateClass, RequestContext, Services } from './routes/route';
import { weightOf } from './routes/table';
import { sendAnswer } from './send';
import type { Ledger, LedgerRequest } from './types';

/** What the pipeline needs from the sandbox. */
export interface PipelineHost {
	ledger: Ledger;
	faults: FaultInjector;
	/** Work the exchange finishes after answering; what is due runs before each request. */
	deferred: DeferredWork;
	now(): number;
	/** The sandbox's own base URL. */
	baseUrl(): string;
	/** The base URL of the other host redirect faults point to. */
	otherHostUrl(): string;
	/** The state the endpoints serve this request from. */
	services(): Services;
	/** The request rates per API key and class. */
	requestLimiter: RequestRateLimiter;
}

export class RequestPipeline {
	/** Timers of answers still being drip-fed; cleared by stop(). */
	private readonly drips = new Set<NodeJS.Timeout>();

	constructor(private readonly host: PipelineHost) {}

	stop(): void {
		for (const t of this.drips) clearTimeout(t);
		this.drips.clear();
	}

	async handle(
		req: http.IncomingMessage,
		res: http.ServerResponse,
		body: string,
		tooBig: boolean,
	): Promise<void> {
		const { host } = this;
		// a request right after a due time must see the work done, whether or not its timer has run
		host.deferred.runDue();
		const rawUrl = req.url ?? '/';
		const qi = rawUrl.indexOf('?');
		const path = qi < 0 ? rawUrl : rawUrl.slice(0, qi);
		const query = qi < 0 ? '' : rawUrl.slice(qi + 1);
		const method = (req.method ?? 'GET').toUpperCase();
		const serverTime = host.now();
		const hdr = req.headers['x-apikey'];
		const weight = weightOf(path, method);
		const entry: LedgerRequest = { method, path, query, body, status: 0, weight, at: serverTime };
		if (typeof hdr === 'string') entry.apiKey = hdr;
		host.ledger.requests.push(entry);

		// The UAE rule, on the real clock: an address that keeps sending after a 429 is banned.
		const { behaviour, limiter } = host.services();
		const address = req.socket.remoteAddress ?? '';
		if (
			behaviour.rateLimitRule === 'uae' &&
			limiter.isSilenced(address, realNow(), behaviour.uaeSilenceMs)
		) {
			const ban = errorResp(418, CODES.ipBanned.code, CODES.ipBanned.msg);
			entry.status = ban.status;
			entry.code = ban.code;
			await host.faults.delay();
			if (!res.destroyed && !res.writableEnded) sendAnswer(req, res, ban, null, this.drips);
			return;
		}

		if (path === REDIRECT_LOOP_PATH) {
			await this.redirectAgain(res, query, entry);
			return;
		}

		const apiKey = typeof hdr === 'string' ? hdr : undefined;
		const rateClass = host.requestLimiter.classOf(apiKey, path, method);
		if (rateClass) entry.rateClass = rateClass;
		// A request the limiter refuses reaches nothing behind it: no fault rule is used up by it.
		const refused = rateClass
			? this.judgeRate(entry, apiKey!, rateClass, () => signedTimestampOf(req, query, body))
			: null;

		const fault = refused ? null : host.faults.pick(method, path);
		if (fault) entry.fault = fault.kind;
		const phase = fault ? phaseOf(fault.kind) : null;
		if (phase === 'dropBefore') {
			await host.faults.delay();
			req.socket.destroy();
			return;
		}

		let resp: Resp;
		if (refused) {
			resp = refused;
		} else if (fault && phase === 'before') {
			resp = this.fromFault(fault, method, path, rawUrl);
			if (fault.kind === 'rateLimitSuspension') {
				entry.limit = 'rateLimited';
				if (rateClass)
					host.requestLimiter.refuseAccepted(apiKey!, rateClass, realNow(), serverTime);
			}
		} else if (tooBig) {
			resp = errorResp(
				413,
				CODES.invalidField.code,
				"Required field 'body' missing or invalid (request body too large)",
			);
		} else if (fault && phase === 'late') {
			const ctx = { req, method, path, query, body, serverTime, fault: null };
			resp = this.processLate(ctx, fault, entry, rawUrl);
		} else {
			const ctx = { req, method, path, query, body, serverTime, fault };
			resp = dispatch(ctx, host.services());
			if (fault && phase === 'after') {
				entry.appliedStatus = resp.status;
				if (!SEND_FAULTS.has(fault.kind)) resp = this.fromFault(fault, method, path, rawUrl);
			}
		}
		if (resp.status === 429) {
			limiter.noteRateLimited(address, realNow());
			// The UAE documentation gives a 429 no Retry-After: it says to wait one minute.
			if (behaviour.rateLimitRule === 'uae') {
				const headers = { ...resp.headers };
				delete headers['Retry-After'];
				resp = { ...resp, headers };
			}
		}
		entry.status = resp.status;
		if (resp.code !== undefined) entry.code = resp.code;

		await host.faults.delay();
		if (fault?.kind === 'dropAfter') {
			req.socket.destroy();
			return;
		}
		if (res.destroyed || res.writableEnded) return;
		sendAnswer(req, res, resp, fault, this.drips);
	}

	/**
	 * The request rates (requestRates.ts), on the real clock: null when the request may go on (it
	 * is counted), else its refusal, marked in the ledger: the 0003 refusal (HTTP 429, or 400 under
	 * behaviour rateLimitStatus 400), or 418 -3145 for a request sent into a suspension.
	 */
	private judgeRate(
		entry: LedgerRequest,
		apiKey: string,
		rateClass: RateClass,
		timestamp: () => number | undefined,
	): Resp | null {
		const verdict = this.host.requestLimiter.judge(
			apiKey,
			rateClass,
			timestamp,
			realNow(),
			entry.at,
		);
		if (verdict === 'accepted') return null;
		entry.limit = verdict;
		if (verdict === 'intoSuspension')
			return errorResp(418, CODES.ipBanned.code, CODES.ipBanned.msg);
		// No Retry-After, as the UAE documentation describes this 429: the client is to wait out
		// the suspension (a minute there), and a Retry-After would invite it back sooner.
		const status = this.host.services().behaviour.rateLimitStatus;
		return errorResp(status, CODES.rateLimited.code, CODES.rateLimited.msg);
	}

	/**
	 * createLate: routed and authenticated now (a refusal there is answered as usual, as the gateway
	 * would), answered with the fault's timeout, and processed `delayMs` later on the state of that
	 * moment. The late answer goes nowhere; its status is kept as the entry's appliedStatus.
	 */
	private processLate(
		ctx: RequestContext,
		fault: ActiveFault,
		entry: LedgerRequest,
		rawUrl: string,
	): Resp {
		const prepared = prepare(ctx, this.host.services());
		if (typeof prepared !== 'function') return prepared;
		this.host.deferred.defer(fault.rule.delayMs ?? CREATE_LATE_DEFAULT_MS, () => {
			entry.appliedStatus = prepared(this.host.services()).status;
		});
		return this.fromFault(fault, ctx.method, ctx.path, rawUrl);
	}

	/** Every hop of a redirect loop redirects again; no rule is used up by the hops. */
	private async redirectAgain(
		res: http.ServerResponse,
		query: string,
		entry: LedgerRequest,
	): Promise<void> {
		const q = new URLSearchParams(query);
		const status = [301, 302, 303, 307, 308].includes(Number(q.get('status')))
			? Number(q.get('status'))
			: 307;
		const hop = Number(q.get('hop')) || 1;
		entry.fault = 'redirectLoop';
		entry.status = status;
		await this.host.faults.delay();
		if (res.destroyed) return;
		res.writeHead(status, {
			Location: `${this.host.baseUrl()}${REDIRECT_LOOP_PATH}?status=${status}&hop=${hop + 1}`,
			'Content-Length': '0',
		});
		res.end();
	}

	private fromFault(fault: ActiveFault, method: string, path: string, rawUrl: string): Resp {
		const a = faultAnswer(
			fault,
			method,
			path,
			{ self: this.host.baseUrl(), other: this.host.otherHostUrl(), url: rawUrl },
			this.host.services().behaviour.rateLimitStatus,
		);
		if (a.value !== undefined) return { ...json(a.status, a.value, a.headers), code: a.code };
		return { status: a.status, raw: a.text ?? '', headers: a.headers };
	}
}
