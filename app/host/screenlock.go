package host

import (
	"context"

	"github.com/godbus/dbus/v5"
)

// screenSavers are the D-Bus interfaces whose ActiveChanged(true) signal
// says the desktop's screen locked (freedesktop, GNOME, Cinnamon, MATE).
var screenSavers = []string{"org.freedesktop.ScreenSaver", "org.gnome.ScreenSaver", "org.cinnamon.ScreenSaver", "org.mate.ScreenSaver"}

// watchScreenLock locks the vault when the screen locks, unless the
// settings say otherwise. Without a session bus (no desktop) it returns at
// once: there is no screen to lock.
func (h *Host) watchScreenLock(ctx context.Context) {
	if h.cfg.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		return
	}
	conn, err := dbus.ConnectSessionBus(dbus.WithContext(ctx))
	if err != nil {
		h.cfg.Log.Warn("lock on screen lock is off: no session bus", "err", err)
		return
	}
	defer conn.Close()
	for _, iface := range screenSavers {
		if err := conn.AddMatchSignal(dbus.WithMatchInterface(iface), dbus.WithMatchMember("ActiveChanged")); err != nil {
			h.cfg.Log.Warn("lock on screen lock is off", "err", err)
			return
		}
	}
	signals := make(chan *dbus.Signal, 8)
	conn.Signal(signals)
	h.emit(Event{ScreenWatch: true})
	for {
		select {
		case <-ctx.Done():
			return
		case s, ok := <-signals:
			if !ok {
				return
			}
			if active, _ := firstBool(s.Body); active && !h.Settings().StayUnlockedOnScreenLock && !h.v.Locked() {
				h.cfg.Log.Info("screen locked: locking the vault")
				h.Lock()
			}
		}
	}
}

func firstBool(body []any) (bool, bool) {
	if len(body) == 0 {
		return false, false
	}
	b, ok := body[0].(bool)
	return b, ok
}
