/**
 * Dispatch of one request to its endpoint: unknown path 404 and wrong method 405 (-1020),
 * authentication of signed routes, and thrown errors turned into error answers.
 */
import { authenticate } from './auth';
import { CODES } from './codes';
import { ApiError } from './errors';
import { errorResp, type Resp } from './response';
import type { Method, RequestContext, Services } from './routes/route';
import { ROUTES } from './routes/table';

export function dispatch(ctx: RequestContext, services: Services): Resp {
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
	try {
		if (!route.signed) return route.handler(ctx, null, services);
		const auth = authenticate(ctx, route, services);
		if ('status' in auth) return auth;
		return route.handler(ctx, auth, services);
	} catch (e) {
		if (e instanceof ApiError) return errorResp(e.status, e.code, e.message);
		return errorResp(
			500,
			CODES.unknownError.code,
			`${CODES.unknownError.msg} (${e instanceof Error ? e.message : String(e)})`,
		);
	}
}
