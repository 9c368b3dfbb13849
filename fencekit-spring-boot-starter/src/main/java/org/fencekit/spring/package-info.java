/**
 * fencekit's Spring Boot auto-configuration: the order store, the fulfilment handler, the
 * signature-checked Stripe webhook and the success page on Spring MVC, the store's health indicator
 * and the handler's meters; each backs off when the application defines its own bean.
 */
package org.fencekit.spring;
