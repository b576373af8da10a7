export type { HttpServer } from './create-http-server.js';
export { createHttpServer } from './create-http-server.js';
export type { ErrorBody, HttpErrorCode } from './errors.js';
export { HTTP_ERROR_CODES, HTTP_STATUS } from './errors.js';
export type { OpenApiDocument } from './openapi.js';
export type { HttpServerOptions } from './options.js';
export type { HttpMethod, Route } from './route.js';
export type { RunningHttpServer, ServeHttpOptions } from './serve-http.js';
export { serveHttp } from './serve-http.js';
