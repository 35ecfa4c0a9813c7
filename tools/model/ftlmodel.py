"""The log-block FTL model for the tools beside this file.

HLB: class HLB of the Python sketch of the model that dm-ftlsim implements
(tools/ftlsim/README.md), read from the file HLB_MODEL names (default:
hlb_model.py beside this file).  PRESETS: each dm-ftlsim preset's HLB
arguments (pages a unit, log blocks, read request and page, write request
and page, page copy and erase costs in microseconds).
"""
import os

_here = os.path.dirname(os.path.abspath(__file__))
_ns = {}
exec(open(os.environ.get('HLB_MODEL', os.path.join(_here, 'hlb_model.py'))).read()
     .split("presets = {")[0], _ns)
HLB = _ns['HLB']
PRESETS = {
    'ssd-a':   (128, 8, 210.0, 41.0, 50.0, 36.5, 52.1, 1500.0),
    'ssd-b':   (512, 4, 441.0, 41.0, 50.0, 47.9, 436.6, 2000.0),
    'sd-card': (16, 4, 830.0, 43.0, 50.0, 187.3, 279.9, 1000.0),
    'sd-worst': (1024, 2, 600.0, 60.0, 50.0, 407.6, 407.6, 2000.0),
}
