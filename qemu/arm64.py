# SPDX-License-Identifier: GPL-2.0
#
# kunit.py --qemu_config for the arm64 run (make qemu-kunit-arm64): the
# kernel's own arm64 parameters (tools/testing/kunit/qemu_configs/arm64.py)
# plus two vCPUs and TCG, as qemu/x86_64.py.  scripts/qemu-kunit.sh runs
# QEMU itself with the same parameters, and a second PL011 for the
# results (QEMU's virt machine adds one when given a second -serial):
# change both together.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm64',
			   kconfig='''
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y''',
			   qemu_arch='aarch64',
			   kernel_path='arch/arm64/boot/Image',
			   kernel_command_line='console=ttyAMA0',
			   extra_qemu_params=['-machine', 'virt',
					      '-cpu', 'max,pauth-impdef=on',
					      '-accel', 'tcg', '-smp', '2'])
