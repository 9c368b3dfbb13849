package org.fencekit.bench;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import org.fencekit.store.OrderStore;

/**
 * A store that also closes a resource it does not own when it is closed: the pool a benchmark
 * handed to a store built over a user's DataSource (the store leaves a user's pool open, as it
 * should). Every other call goes to the store unchanged.
 */
final class ClosingStore implements InvocationHandler {

  private final OrderStore store;
  private final AutoCloseable resource;

  private ClosingStore(OrderStore store, AutoCloseable resource) {
    this.store = store;
    this.resource = resource;
  }

  /** {@code store}, closing {@code resource} after itself. */
  static OrderStore closing(OrderStore store, AutoCloseable resource) {
    return (OrderStore)
        Proxy.newProxyInstance(
            OrderStore.class.getClassLoader(),
            new Class<?>[] {OrderStore.class},
            new ClosingStore(store, resource));
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(store, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    } finally {
      if (method.getName().equals("close") && method.getParameterCount() == 0) {
        resource.close();
      }
    }
  }
}
