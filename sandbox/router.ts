/**
 * Dispatch of one request to its endpoint: unknown path 404 and wrong method 405 (-1020),
 * authentication of signed routes, and thrown errors turned into error answers.
 */
import { authenticate, authenticateKeyOnly } from './auth';
import { CODES } from './codes';
import { ApiError } from './errors';
import { errorResp, type Resp } from './response';
import type { Authed, Method, RequestContext, Services } from './routes/route';
import { ROUTES } from './routes/table';

/** Route and authenticate now, run the handler when called: what createLate needs. */
export type Prepared = Resp | ((services: Services) => Resp);

/** A thrown error as an answer: the family's code, or -1000 for a sandbox bug. */
function errorFrom(e: unknown): Resp {
	if (e instanceof ApiError) return errorResp(e.status, e.code, e.message);
	return errorResp(
		500,
		CODES.unknownError.code,
		`${CODES.unknownError.msg} (${e instanceof Error ? e.message : String(e)})`,
	);
}

function guarded(run: () => Resp): Resp {
	try {
		return run();
	} catch (e) {
		return errorFrom(e);
	}
}

/**
 * Route the request (404, 405) and authenticate it (spec section 5, the weight charged now): an
 * answer when either refuses it, else the endpoint's handler, to run now or later. A late run works
 * on the services it is given then, as an engine that finishes after the gateway answered.
 */
export function prepare(ctx: RequestContext, services: Services): Prepared {
	const routes = ROUTES[ctx.path];
	const unsupported = CODES.unsupportedOperation;
	if (!routes)
		return errorResp(404, unsupported.code, `${unsupported.msg} (unknown path '${ctx.path}')`);
	const route = routes[ctx.method as Method];
	if (!route) {
		const allowed = Object.keys(routes).join(' or ');
		return errorResp(
			405,
			unsupported.code,
			`${unsupported.msg} (method ${ctx.method} not allowed on '${ctx.path}', use ${allowed})`,
		);
	}
	if (!route.signed && !route.keyOnly)
		return (later) => guarded(() => route.handler(ctx, null, later));
	let auth: Authed | Resp;
	try {
		auth = route.keyOnly
			? authenticateKeyOnly(ctx, route, services)
			: authenticate(ctx, route, services);
	} catch (e) {
		return errorFrom(e);
	}
	if ('status' in auth) return auth;
	const authed = auth;
	return (later) => guarded(() => route.handler(ctx, authed, later));
}

export function dispatch(ctx: RequestContext, services: Services): Resp {
	const prepared = prepare(ctx, services);
	return typeof prepared === 'function' ? prepared(services) : prepared;
}
