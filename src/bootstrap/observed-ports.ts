/**
 * The port boundary seen from outside: every call to the storage, permission and cache ports adds
 * its duration to the current request (the log line's `backend_ms`), and backend errors are
 * counted by backend. Domain and application code never know.
 */
import { BackendError } from "../domain/errors.js";
import type { HttpMetrics } from "../adapters/http/metrics.js";
import { addBackendTime } from "../adapters/http/request-context.js";

type Method = (...args: unknown[]) => unknown;

/** The port as the services see it: the container activates every port token through this. */
export function observedPort<P extends object>(port: P, backend: "storage" | "permission" | "cache", metrics: HttpMetrics | undefined): P {
  return timed(port, backend, metrics);
}

/**
 * A proxy of `port` whose methods are timed; they still run on the port itself. Wrappers are
 * kept by method, so a method replaced on the port later (tests break backends so) is wrapped too.
 */
function timed<P extends object>(port: P, backend: string, metrics: HttpMetrics | undefined): P {
  const wrappers = new WeakMap<Method, Method>();
  const failed = (error: unknown) => {
    if (error instanceof BackendError) metrics?.backendFailed(backend);
  };
  return new Proxy(port, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      const method = value as Method;
      let wrapper = wrappers.get(method);
      if (!wrapper) {
        wrapper = (...args: unknown[]) => {
          const started = performance.now();
          const done = () => addBackendTime(performance.now() - started);
          let result: unknown;
          try {
            result = method.apply(target, args);
          } catch (error) {
            done();
            failed(error);
            throw error;
          }
          if (!(result instanceof Promise)) {
            done();
            return result;
          }
          return result.then(
            (resolved: unknown) => {
              done();
              return resolved;
            },
            (error: unknown) => {
              done();
              failed(error);
              throw error;
            },
          );
        };
        wrappers.set(method, wrapper);
      }
      return wrapper;
    },
  });
}
