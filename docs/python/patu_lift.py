# The PATU crane's measured lift (docs/python.md): build, drive with the record, plot.
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import hydromech

fmu = hydromech.build("models/patu-pvg32-fitted.toml", "fmus")
record = pd.read_csv("tests/data/patu-crane/patu_pvg32_lift_measured_27s_5ms.csv")
inputs = pd.DataFrame({
    "time": record["t_s"],
    "lift_valve.command": record["U1_V"],   # valve commands [V]
    "tilt_valve.command": record["U2_V"],
    "supply.p": record["pP_Pa"],            # measured supply and tank pressures [Pa]
    "tank.p": record["pT_Pa"],
})
run = hydromech.simulate(fmu, stop_time=27.0, inputs=inputs,
                         outputs=["lift.angle", "lift_cylinder.p_cap"])

fig, (angle, p_cap) = plt.subplots(2, 1, sharex=True, figsize=(8, 5.5))
angle.plot(record["t_s"], record["z1_deg"], color="0.5", label="measured")
angle.plot(run["time"], np.degrees(run["lift.angle"]), label="hydromech")
angle.set_ylabel("lift angle [°]")
angle.legend()
p_cap.plot(record["t_s"], record["p1_Pa"] / 1e5, color="0.5", label="measured")
p_cap.plot(run["time"], run["lift_cylinder.p_cap"] / 1e5, label="hydromech")
p_cap.set_ylabel("lift cylinder, cap side [bar]")
p_cap.set_xlabel("time [s]")
fig.tight_layout()
fig.savefig("patu-lift.png", dpi=100)
