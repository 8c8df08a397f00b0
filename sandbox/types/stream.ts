/** The user data stream's test controls (Sandbox.stream) and what they report. */

/** Which halves of the JSON heartbeat the sandbox plays; both true by default and after reset(). */
export interface StreamHeartbeat {
	/** Answer a client's `{"ping": n}` with `{"pong": n, "channelId": …}`. */
	answerPings?: boolean;
	/** Send `{"ping": ms, "channelId": …}` every `streamPingIntervalMs` (and end a socket after two unanswered). */
	sendPings?: boolean;
}

export interface StreamStats {
	/** Sockets open now. */
	connections: number;
	/** Sockets ever accepted since the start or the last reset(). */
	connectionsOpened: number;
	/** Listen keys alive now (not expired, not deleted), oldest first. */
	listenKeys: string[];
	/** Listen keys deleted with DELETE /api/v1/userDataStream, in deletion order. */
	deletedListenKeys: string[];
	/** Accepted keep-alives (PUT /api/v1/userDataStream answered 200). */
	keepAlives: number;
	/** `{"ping": n}` messages received from clients (answered or not). */
	pingsFromClients: number;
}

/** Test controls of the user data stream (`sb.stream`); reset() undoes every one of them. */
export interface StreamControl {
	/** The WebSocket URL of a listen key: ws://host:port/api/v1/ws/<listenKey>. */
	url(listenKey: string): string;
	/** Destroy every open socket abruptly (no close frame); the listen keys stay alive. */
	dropConnections(): void;
	/** Stop (or resume) answering client pings and/or sending server pings; fields left out stay as they are. */
	setHeartbeat(heartbeat: StreamHeartbeat): void;
	/** Send each of the next `n` events twice (two separate messages). */
	duplicateNext(n: number): void;
	/** Every live listen key expires now: its sockets close, PUT and DELETE answer -1125, reconnects get 404. */
	expireListenKeys(): void;
	/** Send every event `ms` real milliseconds late (0: at once), order kept. */
	setEventDelay(ms: number): void;
	stats(): StreamStats;
}
