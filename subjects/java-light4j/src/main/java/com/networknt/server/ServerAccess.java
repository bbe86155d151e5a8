package com.networknt.server;

import io.undertow.Undertow;

/** Light-4J keeps its Undertow instance package-private: this reads it, to add listener options. */
public final class ServerAccess {
    private ServerAccess() {}

    public static Undertow undertow() {
        return Server.server;
    }
}
